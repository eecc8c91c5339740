package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The preload list names classes that exist: every BloomStore and hashing-library class in it,
 * and every one it initialises, resolves (a renamed class would otherwise drop out of preloading
 * unnoticed), no name repeats, and a name that does not resolve is skipped, not thrown.
 */
class ClassPreloaderTest {
    @Test
    void everyListedBloomStoreClassResolves() throws IOException {
        List<String> names = names();
        assertTrue(names.size() > 100, "the list holds the open's classes: " + names.size());
        Set<String> seen = new HashSet<>();
        ClassPreloader preloader = ClassPreloader.forTest(getClass().getClassLoader());
        int ours = 0;
        for (String name : names) {
            String bare = name.startsWith("+") ? name.substring(1) : name;
            assertTrue(seen.add(bare), "listed twice: " + bare);
            if (bare.startsWith("io.bloomstore.") || bare.startsWith("net.openhft.hashing.")
                    || bare.startsWith("java.util.zip.") || name.startsWith("+")) {
                assertTrue(preloader.load(name), "listed class does not resolve: " + name);
                ours++;
            }
        }
        assertTrue(ours > 50, "BloomStore classes listed: " + ours);
    }

    @Test
    void aNameThatDoesNotResolveIsSkipped() {
        ClassPreloader preloader = ClassPreloader.forTest(getClass().getClassLoader());
        assertFalse(preloader.load("io.bloomstore.core.db.NoSuchClass"));
        assertTrue(preloader.load("io.bloomstore.core.db.TableHandle"));
        assertTrue(preloader.load("# a comment"));
        assertFalse(preloader.load("+io.bloomstore.core.db.NoSuchClass"));
    }

    @Test
    void preloadingIsOffUnlessAskedFor() {
        assertEquals(ClassPreloader.Mode.OFF, ClassPreloader.Mode.of(null), "the default");
        assertEquals(ClassPreloader.Mode.OFF, ClassPreloader.Mode.of("false"));
        assertEquals(ClassPreloader.Mode.OFF, ClassPreloader.Mode.of("yes please"));
        assertEquals(ClassPreloader.Mode.ALL, ClassPreloader.Mode.of(" TRUE "));
        assertEquals(ClassPreloader.Mode.INITIALISE_ONLY, ClassPreloader.Mode.of("init"), "the launcher's");
    }

    private static List<String> names() throws IOException {
        List<String> names = new ArrayList<>();
        try (InputStream in = ClassPreloader.class.getResourceAsStream(ClassPreloader.LIST)) {
            assertNotNull(in, "the list is packaged beside the class");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                assertEquals(line.trim(), line, "no padding: " + line);
                if (!line.isEmpty() && !line.startsWith("#")) {
                    names.add(line);
                }
            }
        }
        return names;
    }
}
