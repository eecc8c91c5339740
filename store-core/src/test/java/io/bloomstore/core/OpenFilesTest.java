package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.UnsyncedFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store of thousands of tiny tables under {@code maxOpenFiles} 256: it opens, reads, scans,
 * compacts and verifies while the process's {@code .sst} descriptors (counted in
 * {@code /proc/self/fd}) stay within the bound. Filter-sidecar descriptors are counted apart:
 * a mapping needs no descriptor once made. The store skips syncs (durability is not the point
 * here, and two fsyncs per tiny table would dominate the run).
 */
class OpenFilesTest {
    private static final int MAX_OPEN_FILES = 256;
    private static final int TABLE_BOUND = MAX_OPEN_FILES - StoreOptions.NON_TABLE_FILES;
    private static final int ENTRIES_PER_TABLE = 10;

    @TempDir
    Path tmp;

    @Test
    void aStoreOfFifteenHundredTablesStaysWithinTheBound() throws IOException {
        run(1_500);
    }

    @Tag("stress")
    @Test
    void aStoreOfFiveThousandTablesStaysWithinTheBound() throws IOException {
        run(5_000);
    }

    /** A filter mapping needs no descriptor once made, so a store's filters must hold none. */
    @Test
    void filterMappingsHoldNoDescriptors() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc/self/fd (Linux)");
        Path dir = tmp.resolve("filters");
        StoreOptions options = StoreOptions.builder().autoCompaction(false).build();
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options)) {
            for (int t = 0; t < 20; t++) {
                store.put(key(t), value(t, 0));
                store.flush();
            }
        }
        try (Store store = Store.open(dir, options)) {
            assertEquals(20, tableCount(store));
            assertArrayEquals(value(7, 0), store.get(key(7)));
            // This store's files only: a store another test left behind may be writing a filter now.
            long held = descriptors(dir, ".filter");
            System.out.println("filter sidecar descriptors held by an open store of 20 tables: " + held);
            assertEquals(0, held, "descriptors held by the filter mappings of 20 tables");
        }
    }

    @Test
    void badLimitsAreRefused() {
        for (int bad : new int[] {0, -2, 1, StoreOptions.MIN_MAX_OPEN_FILES - 1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StoreOptions.builder().maxOpenFiles(bad).build());
            assertTrue(e.getMessage().contains("maxOpenFiles"), e.getMessage());
        }
        assertEquals(StoreOptions.DEFAULT_MAX_OPEN_FILES, StoreOptions.defaults().maxOpenFiles());
        assertEquals(-1, StoreOptions.builder().maxOpenFiles(-1).build().tableFileCacheCapacity());
        assertEquals(StoreOptions.MIN_MAX_OPEN_FILES,
                StoreOptions.builder().maxOpenFiles(StoreOptions.MIN_MAX_OPEN_FILES).build().maxOpenFiles());
    }

    private void run(int tables) throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc/self/fd (Linux)");
        long seed = System.nanoTime();
        System.out.println("OpenFilesTest seed " + seed + ", " + tables + " tables");
        Random rnd = new Random(seed);
        int keys = tables * ENTRIES_PER_TABLE;
        Path dir = tmp.resolve("store");
        StoreOptions options = StoreOptions.builder().maxOpenFiles(MAX_OPEN_FILES).autoCompaction(false)
                .targetFileBytes(1024).blockSize(256).compression(Compression.NONE).blockCacheBytes(64 << 10)
                .memtableBytes(8L << 20).build();
        long start = System.nanoTime();
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options)) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i, 0));
            }
            store.compact();
            int files = tableCount(store);
            assertTrue(files >= tables, "expected at least " + tables + " tables, got " + files);
            assertWithinBound(dir, "after building");
        }
        System.out.printf("built %d tables in %d ms%n", tables, (System.nanoTime() - start) / 1_000_000);
        long heapBefore = usedHeap();
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options)) {
            long heap = usedHeap() - heapBefore;
            System.out.printf("heap after opening %d tables: %,d bytes, %,d per table%n", tableCount(store), heap,
                    heap / tableCount(store));
            assertWithinBound(dir, "after open");
            for (int n = 0; n < 5_000; n++) {
                int i = rnd.nextInt(keys);
                assertArrayEquals(value(i, 0), store.get(key(i)), "key " + i);
                assertNull(store.get(("missing" + i).getBytes(StandardCharsets.UTF_8)));
            }
            assertWithinBound(dir, "after random reads");
            int seen = 0;
            try (StoreIterator it = store.iterator(null, null)) {
                while (it.hasNext()) {
                    assertArrayEquals(key(seen), it.next().key());
                    seen++;
                    if (seen % 2_000 == 0) {
                        assertWithinBound(dir, "during a scan");
                    }
                }
            }
            assertEquals(keys, seen);
            for (int i = 0; i < keys; i += 3) {
                store.put(key(i), value(i, 1));
            }
            store.compact();
            assertWithinBound(dir, "after compaction");
            for (int n = 0; n < 2_000; n++) {
                int i = rnd.nextInt(keys);
                assertArrayEquals(value(i, i % 3 == 0 ? 1 : 0), store.get(key(i)), "key " + i);
            }
            assertTrue(tableCount(store) >= tables, "compaction kept the tables tiny");
        }
        VerifyReport report = StoreVerifier.verify(dir);
        assertTrue(report.clean(), report.problems().toString());
        System.out.printf("%d tables opened, read, scanned, compacted and verified in %d ms%n", tables,
                (System.nanoTime() - start) / 1_000_000);
    }

    /** Heap in use after a collection (an estimate: the collector may leave some garbage). */
    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    private static int tableCount(Store store) {
        return store.stats().levels().stream().mapToInt(StoreStats.LevelStats::files).sum();
    }

    /** Checks the {@code .sst} bound and reports the filter descriptors (checked apart). */
    private static void assertWithinBound(Path dir, String when) throws IOException {
        long sst = descriptors(dir, ".sst");
        long filter = descriptors(dir, ".filter");
        System.out.printf("%s: %d .sst and %d .filter descriptors open%n", when, sst, filter);
        assertTrue(sst <= TABLE_BOUND, when + ": " + sst + " .sst descriptors open, bound " + TABLE_BOUND);
    }

    /** Descriptors of this process open on files whose name ends with {@code suffix}. */
    /** Descriptors of this process open on files in {@code dir} whose names end with {@code suffix}. */
    static long descriptors(Path dir, String suffix) throws IOException {
        long n = 0;
        Path real = dir.toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.startsWith(real) && target.toString().endsWith(suffix)) {
                        n++;
                    }
                } catch (IOException e) {
                    // The descriptor was closed (the listing's own among them) while being read.
                }
            }
        }
        return n;
    }

    private static byte[] key(int i) {
        return String.format("key%012d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int version) {
        byte[] v = new byte[100];
        new Random(i * 31L + version).nextBytes(v);
        return v;
    }
}
