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
    void scanFilterCountersAddUpAcrossOpens() throws Exception {
        // Keys under the prefixes a, c, e, ..., y in one table; b, d, ..., x lie inside its key
        // range but are absent, so only the prefix filter can rule the table out.
        StoreOptions options = StoreOptions.builder().prefixExtractor(PrefixExtractor.fixed(1))
                .rangeFilter(RangeFilterOptions.of(16)).build();
        long skippedFirstOpen;
        try (Store store = Store.open(dir, options)) {
            for (char p = 'a'; p <= 'y'; p += 2) {
                for (int i = 0; i < 20; i++) {
                    store.put((p + "-" + i).getBytes(StandardCharsets.UTF_8), key(i));
                }
            }
            store.flush();
            for (char p = 'b'; p <= 'x'; p += 2) {
                try (StoreIterator it = store.prefixIterator(new byte[] {(byte) p})) {
                    assertTrue(!it.hasNext());
                }
            }
            // A short range within the absent prefix "d": a range scan, and a prefix scan too.
            try (StoreIterator it = store.iterator("d0000000".getBytes(StandardCharsets.UTF_8),
                    "d0000001".getBytes(StandardCharsets.UTF_8))) {
                assertTrue(!it.hasNext());
            }
            StoreStats s = store.stats();
            assertEquals(13, s.prefixScans());
            assertEquals(1, s.rangeScans());
            assertEquals(s.prefixScans(), s.cumulative().prefixScans());
            assertEquals(s.prefixChecked(), s.cumulative().prefixChecked());
            assertEquals(s.prefixUseful(), s.cumulative().prefixUseful());
            assertEquals(1, s.cumulative().rangeScans());
            skippedFirstOpen = s.cumulative().prefixUseful();
            // 12 absent prefixes and the range's, one table each, at the filter's 1% FPR: all but a rare one skipped.
            assertTrue(skippedFirstOpen >= 11, "tables skipped by 13 scans of absent prefixes: " + skippedFirstOpen);
        }
        try (Store store = Store.open(dir, options)) {
            try (StoreIterator it = store.prefixIterator("r".getBytes(StandardCharsets.UTF_8))) {
                assertTrue(!it.hasNext());
            }
            StoreStats s = store.stats();
            assertEquals(1, s.prefixScans());
            assertEquals(14, s.cumulative().prefixScans());
            assertEquals(skippedFirstOpen + s.prefixUseful(), s.cumulative().prefixUseful());
            assertEquals(1, s.cumulative().rangeScans());
            assertEquals(14, s.cumulative().prefixChecked());
        }
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
