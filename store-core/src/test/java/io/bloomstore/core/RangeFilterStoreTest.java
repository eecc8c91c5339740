package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Range filters in a store: an empty range just past a stored key (the correlated case) reads
 * almost no data block, where the same store without range filters reads about one block per
 * table whose key range covers it; non-empty short ranges return exactly their keys; statistics
 * count what the filters saved, per level and per table.
 */
class RangeFilterStoreTest {
    private static final int KEYS = 4000;
    private static final int RANGE = 1024;

    /** Key i: its 8-byte head is i·2^20 (big-endian), then a 4-byte tail. */
    private static byte[] key(long head, int tail) {
        return ByteBuffer.allocate(12).putLong(head).putInt(tail).array();
    }

    private static byte[] head(long head) {
        return ByteBuffer.allocate(8).putLong(head).array();
    }

    private static StoreOptions options(RangeFilterOptions range) {
        return StoreOptions.builder().autoCompaction(false).blockCacheBytes(0).blockSize(512).rangeFilter(range)
                .build();
    }

    /** Four level-0 tables, each a quarter of the keys, interleaved so every table spans the key space. */
    private static void load(Store store) throws IOException {
        for (int t = 0; t < 4; t++) {
            for (int i = t; i < KEYS; i += 4) {
                store.put(key((long) i << 20, i), new byte[40]);
            }
            store.flush();
        }
    }

    private static double readsPerEmptyScan(Store store) {
        long before = store.stats().dataBlockReads();
        for (int i = 0; i < KEYS - 1; i++) {
            long past = ((long) i << 20) + 1;
            try (StoreIterator it = store.iterator(head(past), head(past + RANGE))) {
                assertTrue(!it.hasNext(), "range just past key " + i + " is empty");
            }
        }
        return (double) (store.stats().dataBlockReads() - before) / (KEYS - 1);
    }

    @Test
    void emptyRangesJustPastAKeyReadAlmostNoBlocks() throws IOException {
        double with;
        double without;
        MemoryFileSystem fs = new MemoryFileSystem();
        try (Store store = Store.open(fs, Path.of("/range/with"), options(RangeFilterOptions.of(22)))) {
            load(store);
            with = readsPerEmptyScan(store);
            StoreStats s = store.stats();
            assertEquals(KEYS - 1, s.rangeScans());
            // Every table whose key range covers the scan is asked: all four, but at the ends.
            assertTrue(s.rangeChecked() >= 4L * (KEYS - 1) - 20, "checked " + s.rangeChecked());
            assertTrue(s.rangeUseful() >= 0.99 * s.rangeChecked(), "useful " + s.rangeUseful());
            assertEquals(s.rangeUseful(), s.levels().get(0).rangeUseful());
            for (StoreStats.TableFilterStats t : s.tables()) {
                // 1000 distinct heads at 22 bits each, plus the section's header and trailer.
                assertTrue(t.rangeFilterBytes() > 1000 * 22 / 8 && t.rangeFilterBytes() < 1000 * 23 / 8 + 200,
                        "range filter bytes " + t);
            }
            // Non-empty short ranges: exactly their keys, in order.
            for (int i = 0; i < KEYS; i += 97) {
                long h = (long) i << 20;
                try (StoreIterator it = store.iterator(head(h), head(h + RANGE))) {
                    assertTrue(it.hasNext());
                    assertArrayEquals(key(h, i), it.next().key());
                    assertTrue(!it.hasNext());
                }
            }
        }
        try (Store store = Store.open(fs, Path.of("/range/without"), options(null))) {
            load(store);
            without = readsPerEmptyScan(store);
            assertEquals(0, store.stats().rangeChecked());
        }
        System.out.printf("empty ranges of %d just past a key, 4 tables: %.4f data-block reads per scan with range"
                + " filters (22 bits/key), %.4f without%n", RANGE, with, without);
        assertTrue(with <= 0.05, "reads per empty scan with range filters: " + with);
        assertTrue(without >= 1.0, "reads per empty scan without: " + without);
    }
}
