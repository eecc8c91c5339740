package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Prefix filters in a store: scans of missing prefixes read (almost) no data blocks, tables
 * written under another extractor are scanned unfiltered (and correctly) after a reopen with a
 * different one, and the statistics count what the filters saved, per level and per table.
 */
class PrefixFilterStoreTest {
    private static final int PREFIXES = 400;
    private static final int KEYS_PER_PREFIX = 10;

    private static byte[] key(int prefix, int i) {
        return String.format("p%05d:%04d", prefix, i).getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] prefix(int prefix) {
        return String.format("p%05d:", prefix).getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Even prefixes hold keys; four flushed tables each hold a quarter of them, interleaved. */
    private static void load(Store store) throws IOException {
        for (int round = 0; round < 4; round++) {
            for (int p = round * 2; p < PREFIXES; p += 8) {
                for (int i = 0; i < KEYS_PER_PREFIX; i++) {
                    store.put(key(p, i), new byte[32]);
                }
            }
            store.flush();
        }
    }

    private static int count(StoreIterator it) {
        int n = 0;
        try (it) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    private static StoreOptions options(PrefixExtractor extractor) {
        return StoreOptions.builder().autoCompaction(false).blockCacheBytes(0).blockSize(512)
                .prefixExtractor(extractor).build();
    }

    @Test
    void missingPrefixesReadAlmostNoBlocksAndPresentOnesReadTheirOwnTable() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/prefix/store");
        try (Store store = Store.open(fs, dir, options(PrefixExtractor.upTo((byte) ':')))) {
            load(store);
            assertEquals(4, store.stats().levels().get(0).files());
            long reads = store.stats().dataBlockReads();
            int scans = 0;
            for (int p = 1; p < PREFIXES; p += 2) {
                assertEquals(0, count(store.prefixIterator(prefix(p))));
                scans++;
            }
            StoreStats s = store.stats();
            double perScan = (double) (s.dataBlockReads() - reads) / scans;
            System.out.printf("missing prefix scans: %.4f data-block reads per scan over %d scans (4 tables)%n",
                    perScan, scans);
            // Each table's prefix filter (10 bits per prefix, ~1% FPR) is asked once per scan: 4
            // tables give ~0.04 expected reads; 0.1 leaves room for chance (deterministic data).
            assertTrue(perScan <= 0.1, "data-block reads per missing-prefix scan: " + perScan);
            // Every table whose key range holds the prefix is asked once: all four, but near the ends.
            assertTrue(s.prefixChecked() <= 4L * scans && s.prefixChecked() >= 4L * scans - 20,
                    "checked " + s.prefixChecked());
            assertTrue(s.prefixUseful() >= 0.95 * s.prefixChecked(), "useful " + s.prefixUseful());
            assertEquals(s.prefixUseful(), s.levels().get(0).prefixUseful());
            assertEquals(scans, s.prefixScans());

            long before = store.stats().prefixUseful();
            for (int p = 0; p < PREFIXES; p += 2) {
                assertEquals(KEYS_PER_PREFIX, count(store.prefixIterator(prefix(p))));
            }
            // A present prefix lives in one of the four tables: the other three are skipped (bar FPs).
            long useful = store.stats().prefixUseful() - before;
            assertTrue(useful >= 0.95 * 3 * (PREFIXES / 2), "useful for present prefixes: " + useful);

            assertEquals(4, s.tables().size());
            for (StoreStats.TableFilterStats t : s.tables()) {
                assertEquals("upto:3a", t.prefixExtractor());
                assertTrue(t.prefixFilterBytes() > 0 && t.keyFilterBytes() > t.prefixFilterBytes(),
                        "a table's prefix filter holds a tenth of its items: " + t);
                assertTrue(t.sidecarBytes() >= t.keyFilterBytes() + t.prefixFilterBytes());
            }
            assertEquals(s.tables().stream().mapToLong(StoreStats.TableFilterStats::prefixFilterBytes).sum(),
                    s.levels().get(0).prefixFilterBytes());
        }
    }

    @Test
    void reopeningWithAnotherExtractorScansOldTablesUnfiltered() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/prefix/change");
        try (Store store = Store.open(fs, dir, options(PrefixExtractor.upTo((byte) ':')))) {
            load(store);
        }
        // fixed(7) cuts "p00001:" too, but it is another extractor: the old filters do not count.
        try (Store store = Store.open(fs, dir, options(PrefixExtractor.fixed(7)))) {
            for (int p = 0; p < 40; p++) {
                assertEquals(p % 2 == 0 ? KEYS_PER_PREFIX : 0, count(store.prefixIterator(prefix(p))));
            }
            assertEquals(0, store.stats().prefixChecked(), "tables of another extractor are read unfiltered");
            assertTrue(store.stats().tables().stream().allMatch(t -> "upto:3a".equals(t.prefixExtractor())));
            store.compact();
            for (int p = 0; p < 40; p++) {
                assertEquals(p % 2 == 0 ? KEYS_PER_PREFIX : 0, count(store.prefixIterator(prefix(p))));
            }
            assertTrue(store.stats().prefixUseful() > 0, "compaction rewrote the tables with the new extractor");
            assertTrue(store.stats().tables().stream().allMatch(t -> "fixed:7".equals(t.prefixExtractor())));
        }
        try (Store store = Store.open(fs, dir, options(null))) {
            assertEquals(KEYS_PER_PREFIX, count(store.prefixIterator(prefix(2))));
            assertEquals(0, store.stats().prefixChecked(), "no extractor: no prefix filter asked");
        }
        try (Store store = Store.open(fs, dir, options(PrefixExtractor.fixed(7)))) {
            assertEquals(0, count(store.prefixIterator(prefix(3))));
            assertTrue(store.stats().prefixChecked() > 0, "the same extractor again: its filters count again");
        }
    }

    @Test
    void prefixIteratorChecksItsArgumentAndCopiesIt() throws IOException {
        try (Store store = Store.open(new MemoryFileSystem(), Path.of("/prefix/args"), options(null))) {
            assertThrows(IllegalArgumentException.class, () -> store.prefixIterator(null));
            store.put(key(1, 1), new byte[1]);
            store.put(key(2, 1), new byte[1]);
            byte[] p = prefix(1);
            try (StoreIterator it = store.prefixIterator(p)) {
                p[5] = '2';
                assertTrue(it.hasNext());
                assertEquals("p00001:0001", new String(it.next().key(), StandardCharsets.ISO_8859_1));
            }
            assertEquals(2, count(store.prefixIterator(new byte[0])), "an empty prefix scans every key");
        }
    }
}
