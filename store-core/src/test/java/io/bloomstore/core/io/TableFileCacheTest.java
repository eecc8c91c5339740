package io.bloomstore.core.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bounded cache of open table files: eviction, reopening, and reads racing eviction and close. */
class TableFileCacheTest {
    private static final int FILES = 40;
    private static final int FILE_BYTES = 8192;

    @TempDir
    Path tmp;

    private List<Path> files() throws IOException {
        List<Path> paths = new ArrayList<>();
        for (int f = 0; f < FILES; f++) {
            byte[] b = new byte[FILE_BYTES];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (f * 7 + i);
            }
            paths.add(Files.write(tmp.resolve(f + ".sst"), b));
        }
        return paths;
    }

    private static void check(RandomReadFile file, int f, long position, int length) throws IOException {
        ByteBuffer dst = ByteBuffer.allocate(length);
        file.readFully(position, dst);
        for (int i = 0; i < length; i++) {
            assertEquals((byte) (f * 7 + position + i), dst.get(i), "file " + f + " at " + (position + i));
        }
    }

    @Test
    void evictsLeastRecentlyUsedAndReopensOnDemand() throws IOException {
        List<Path> paths = files();
        TableFileCache cache = new TableFileCache(LocalFileSystem.INSTANCE, 3, false);
        List<RandomReadFile> open = new ArrayList<>();
        for (Path p : paths) {
            open.add(cache.open(p));
        }
        assertEquals(3, cache.openFiles());
        assertEquals(FILES, cache.opens());
        assertEquals(FILE_BYTES, open.get(0).size(), "size is known while the file is closed");
        check(open.get(0), 0, 100, 50);
        assertEquals(FILES + 1, cache.opens(), "an evicted file reopens");
        check(open.get(FILES - 1), FILES - 1, 0, 10);
        check(open.get(0), 0, 4000, 10);
        assertEquals(FILES + 1, cache.opens(), "recently used files stay open");
        for (RandomReadFile f : open) {
            f.close();
        }
        assertEquals(0, cache.openFiles());
        assertThrows(ClosedChannelException.class, () -> check(open.get(1), 1, 0, 1));
    }

    @Test
    void unboundedOpensPlainFiles() throws IOException {
        List<Path> paths = files();
        TableFileCache cache = TableFileCache.unbounded(LocalFileSystem.INSTANCE);
        try (RandomReadFile f = cache.open(paths.get(5))) {
            check(f, 5, 10, 100);
        }
        assertEquals(0, cache.openFiles());
        assertThrows(IllegalArgumentException.class, () -> new TableFileCache(LocalFileSystem.INSTANCE, 0, false));
    }

    /**
     * Threads read random files through a cache of two while others close and replace handles:
     * a read never sees a descriptor closed under it and the bytes are always right.
     */
    @Test
    void readsRacingEvictionAndCloseStayCorrect() throws Exception {
        List<Path> paths = files();
        TableFileCache cache = new TableFileCache(LocalFileSystem.INSTANCE, 2, false);
        long seed = System.nanoTime();
        System.out.println("TableFileCacheTest seed " + seed);
        RandomReadFile[] open = new RandomReadFile[FILES];
        for (int f = 0; f < FILES; f++) {
            open[f] = cache.open(paths.get(f));
        }
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long threadSeed = seed + t;
                results.add(pool.submit(() -> {
                    Random rnd = new Random(threadSeed);
                    int reads = 0;
                    for (int n = 0; n < 10_000; n++) {
                        int f = rnd.nextInt(FILES);
                        RandomReadFile file = open[f];
                        int length = 1 + rnd.nextInt(256);
                        try {
                            check(file, f, rnd.nextInt(FILE_BYTES - length), length);
                            reads++;
                        } catch (ClosedChannelException e) {
                            // The handle was replaced meanwhile: the next draw reads the new one.
                        }
                    }
                    return reads;
                }));
            }
            Random rnd = new Random(seed);
            for (int n = 0; n < 2_000; n++) {
                int f = rnd.nextInt(FILES);
                RandomReadFile old = open[f];
                open[f] = cache.open(paths.get(f));
                old.close();
            }
            int reads = 0;
            for (Future<Integer> r : results) {
                reads += r.get();
            }
            assertTrue(reads > threads * 5_000, "most reads found an open handle: " + reads);
            assertTrue(cache.openFiles() <= 2, "within capacity once no read is in flight: " + cache.openFiles());
            assertTrue(cache.evictions() > 0);
        } finally {
            pool.shutdownNow();
        }
        for (RandomReadFile f : open) {
            f.close();
        }
        assertEquals(0, cache.openFiles());
    }
}
