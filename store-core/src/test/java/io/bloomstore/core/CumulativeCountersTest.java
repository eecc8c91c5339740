package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.stats.CountersFile;

/**
 * Per-open counters start at zero at each open; {@link StoreStats#cumulative()} adds up every open
 * since the store was created, saved after each flush and at close (docs/format/counters.md).
 */
class CumulativeCountersTest {
    @TempDir
    Path dir;

    @Test
    void countersAddUpAcrossOpensAndAreSavedAtFlushAndClose() throws Exception {
        try (Store store = Store.open(dir)) {
            for (int i = 0; i < 500; i += 2) {
                store.put(key(i), key(i));
            }
            store.flush();
            for (int i = 1; i < 500; i += 2) {
                store.get(key(i));
            }
            StoreStats s = store.stats();
            assertEquals(250, s.gets());
            assertEquals(250, s.cumulative().gets());
            assertEquals(s.filterNegatives(), s.cumulative().filterNegatives());
        }
        Map<String, Long> saved = CountersFile.read(LocalFileSystem.INSTANCE, dir.resolve(FileNames.COUNTERS));
        assertEquals(250L, saved.get("gets"), "close saves the counters");
        long negativesFirstOpen = saved.get("filterNegatives");
        assertTrue(negativesFirstOpen > 200, "filters answered absent for " + negativesFirstOpen + " of 250");

        try (Store store = Store.open(dir)) {
            StoreStats s = store.stats();
            assertEquals(0, s.gets(), "per-open counters start at zero at each open");
            assertEquals(250, s.cumulative().gets());
            assertEquals(negativesFirstOpen, s.cumulative().filterNegatives());
            for (int i = 1; i < 100; i += 2) {
                store.get(key(i));
            }
            store.put(key(1000), key(1000));
            store.flush();
            Map<String, Long> afterFlush = CountersFile.read(LocalFileSystem.INSTANCE,
                    dir.resolve(FileNames.COUNTERS));
            assertEquals(300L, afterFlush.get("gets"), "a flush saves the counters");
            assertEquals(2L, afterFlush.get("flushes"));
            assertEquals(300, store.stats().cumulative().gets());
        }
        assertTrue(StoreVerifier.verify(dir).problems().isEmpty(), "a COUNTERS file is a store file");
    }

    @Test
    void aDamagedCountersFileRestartsTheSumsAndTheStoreStillOpens() throws Exception {
        try (Store store = Store.open(dir)) {
            store.put(key(1), key(1));
            store.get(key(2));
        }
        Path counters = dir.resolve(FileNames.COUNTERS);
        byte[] bytes = Files.readAllBytes(counters);
        bytes[10] ^= 1;
        Files.write(counters, bytes);
        assertEquals(1, StoreVerifier.verify(dir).problems().size(), "verify reports the damage");
        try (Store store = Store.open(dir)) {
            assertEquals(0, store.stats().cumulative().gets());
            assertEquals("1", new String(store.get(key(1)), StandardCharsets.UTF_8).substring(4));
        }
        assertEquals(1L, CountersFile.read(LocalFileSystem.INSTANCE, counters).get("gets"), "rewritten whole at close");
    }

    private static byte[] key(int i) {
        return String.format("key-%d", i).getBytes(StandardCharsets.UTF_8);
    }
}
