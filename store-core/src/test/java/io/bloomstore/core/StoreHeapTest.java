package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a store maps its filters instead of reading them: the heap grows by far less than the
 * filters' size. The CI variant builds 16 MiB of filters (2 M keys at 64 bits/key); the stress
 * variant ({@code -Pstress}) 256 MiB. The tolerance is a quarter of the filter bytes, so a store
 * that copied its filters onto the heap fails by a wide margin.
 */
class StoreHeapTest {
    @TempDir
    Path tmp;

    @Test
    void openingWithLargeFiltersKeepsHeapFlat() throws IOException {
        check(2_000_000);
    }

    @Test
    @Tag("stress")
    void openingWithHundredsOfMegabytesOfFiltersKeepsHeapFlat() throws IOException {
        check(32_000_000);
    }

    private void check(int keys) throws IOException {
        StoreOptions options = StoreOptions.builder().filterKind(FilterKind.BLOCKED_BLOOM).bitsPerKey(64).memtableBytes(256L << 20)
                .compression(Compression.NONE).build();
        Path dir = tmp.resolve("heap");
        load(dir, options, keys, "%010d", 0);
        long before = usedHeap();
        try (Store store = Store.open(dir, options)) {
            // A table maps its filter at its first lookup: absent keys across the whole key range
            // reach every table (stats reads only the filters' headers).
            for (int i = 0; i < keys; i += keys / 1000) {
                assertNull(store.get((String.format("%010d", i) + "x").getBytes(StandardCharsets.US_ASCII)));
            }
            long after = usedHeap();
            long filterBytes = store.stats().filterBytes();
            System.out.printf("heap test: %d keys, %d filter bytes mapped, heap delta on open and 1,000 lookups %d"
                    + " bytes%n", keys, filterBytes, after - before);
            assertTrue(filterBytes >= keys * 8L * 0.9, "filters of " + filterBytes + " bytes");
            assertTrue(after - before < filterBytes / 4,
                    "heap grew by " + (after - before) + " bytes opening " + filterBytes + " bytes of filters");
        }
    }

    /**
     * Table indexes live off the heap too: a store whose tables have tens of thousands of small
     * blocks opens, and decodes every index (on first use), with a heap delta far below its index bytes, and reports a per-table constant
     * as index heap. Before, each block's last key was an array on the heap.
     */
    @Test
    void openingWithLargeIndexesKeepsHeapFlat() throws IOException {
        StoreOptions options = StoreOptions.builder().blockSize(256).memtableBytes(256L << 20)
                .compression(Compression.NONE).build();
        Path dir = tmp.resolve("index");
        load(dir, options, 1_000_000, "%012d", 8);
        long before = usedHeap();
        try (Store store = Store.open(dir, options)) {
            assertEquals(0, store.stats().indexOffHeapBytes(), "an open decodes no index: the first use does");
            try (StoreIterator all = store.iterator(null, null)) {
                assertTrue(all.hasNext(), "a scan positions every table, decoding its index");
            }
            long after = usedHeap();
            StoreStats s = store.stats();
            System.out.printf("index heap test: %d tables, %d index bytes off the heap, %d on it (estimate), heap"
                    + " delta on open %d bytes%n", s.totalFiles(), s.indexOffHeapBytes(), s.indexHeapBytes(),
                    after - before);
            assertTrue(s.indexOffHeapBytes() > 2L << 20, "index bytes off the heap: " + s.indexOffHeapBytes());
            assertTrue(s.indexHeapBytes() <= 256L * s.totalFiles(), "index heap estimate " + s.indexHeapBytes());
            assertTrue(after - before < s.indexOffHeapBytes() / 4,
                    "heap grew by " + (after - before) + " bytes opening " + s.indexOffHeapBytes() + " index bytes");
        }
    }

    /** Writes keys 0 .. keys-1 formatted by {@code format} with zeroed values, in batches, then flushes. */
    private static void load(Path dir, StoreOptions options, int keys, String format, int valueBytes)
            throws IOException {
        try (Store store = Store.open(dir, options)) {
            WriteBatch batch = new WriteBatch();
            byte[] value = new byte[valueBytes];
            for (int i = 0; i < keys; i++) {
                batch.put(String.format(format, i).getBytes(StandardCharsets.US_ASCII), value);
                if (batch.count() == 10_000) {
                    store.write(batch, WriteOptions.DEFAULT);
                    batch = new WriteBatch();
                }
            }
            store.write(batch, WriteOptions.DEFAULT);
            store.flush();
        }
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
