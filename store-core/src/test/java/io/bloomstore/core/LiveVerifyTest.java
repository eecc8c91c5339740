package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreVerifier#verifyLive}: a store held open for writing verifies clean as of one moment,
 * through an image that is removed after, with nothing in the store's directory changed; damage in a
 * live table is found.
 */
class LiveVerifyTest {
    @TempDir
    Path tmp;

    @Test
    void verifiesAStoreHeldOpenAndChangesNothing() throws Exception {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir, SecondaryStoreTest.small())) {
            for (int i = 0; i < 3000; i++) {
                primary.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            primary.flush();
            primary.awaitCompactions();
            assertThrows(LockedException.class, () -> StoreVerifier.verify(dir));
            Map<String, String> before = SecondaryStoreTest.quietListing(dir);
            VerifyReport report = StoreVerifier.verifyLive(new SecondaryStoreTest.GuardedFileSystem(dir), dir,
                    tmp.resolve("image"));
            assertTrue(report.clean(), report.problems().toString());
            assertTrue(report.checked().size() >= 4, report.checked().toString());
            assertEquals(dir, report.checked().get(0).file().getParent(), "the report names the store's files");
            assertFalse(Files.exists(tmp.resolve("image")), "the image is removed");
            assertEquals(before, SecondaryStoreTest.listing(dir));
            assertThrows(IllegalArgumentException.class, () -> StoreVerifier.verifyLive(dir, dir.resolve("x")));
        }
    }

    @Test
    void findsDamageInALiveTable() throws Exception {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir, SecondaryStoreTest.small())) {
            for (int i = 0; i < 3000; i++) {
                primary.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            primary.flush();
            primary.awaitCompactions();
            Path table;
            try (var s = Files.list(dir)) {
                table = s.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
            }
            byte[] bytes = Files.readAllBytes(table);
            bytes[10] ^= 0x40;
            Files.write(table, bytes);
            VerifyReport report = StoreVerifier.verifyLive(dir, tmp.resolve("image"));
            assertFalse(report.clean());
            assertEquals(table.getFileName(), report.errors().get(0).file().getFileName(), report.errors().toString());
        }
    }
}
