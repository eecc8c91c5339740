package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Several writer threads, each owning a disjoint key range, write rounds of values while reader
 * threads get and scan, a thread calls {@link Store#compact()} and background flushes and
 * compactions run. Each writer publishes the last round it finished; a reader that sees round r
 * published must find every key of that writer at round ≥ r, scans must be sorted without
 * duplicates, and a snapshot scan must show one round per writer range as of the snapshot (each
 * writer's round is written as one batch, so a snapshot never sees half a round). At the end, and
 * after a reopen, every key holds its last round. The seed is printed.
 */
class ConcurrentStoreTest {
    private static final int WRITERS = 3;
    private static final int KEYS_PER_WRITER = 300;
    private static final int ROUNDS = 30;

    @Test
    void writersReadersFlushAndCompactionAtOnce() throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("ConcurrentStoreTest seed " + seed);
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/concurrent");
        StoreOptions options = StoreOptions.builder().memtableBytes(16 * 1024).l0Triggers(2, 4, 6)
                .baseLevelBytes(32 * 1024).levelSizeRatio(3).targetFileBytes(16 * 1024).blockSize(512).build();
        AtomicIntegerArray published = new AtomicIntegerArray(WRITERS);
        for (int w = 0; w < WRITERS; w++) {
            published.set(w, -1);
        }
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 3);
        try (Store store = Store.open(fs, dir, options)) {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        WriteBatch batch = new WriteBatch();
                        for (int i = 0; i < KEYS_PER_WRITER; i++) {
                            batch.put(key(writer, i), value(round, i));
                        }
                        store.write(batch, WriteOptions.DEFAULT);
                        published.set(writer, round);
                    }
                    return null;
                }));
            }
            List<Future<?>> others = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                long readerSeed = seed + r;
                others.add(pool.submit(() -> {
                    Random rnd = new Random(readerSeed);
                    while (!done.get()) {
                        int w = rnd.nextInt(WRITERS);
                        int seen = published.get(w);
                        int i = rnd.nextInt(KEYS_PER_WRITER);
                        byte[] v = store.get(key(w, i));
                        if (seen >= 0) {
                            assertTrue(v != null && roundOf(v) >= seen, "writer " + w + " key " + i + " at round "
                                    + (v == null ? "none" : roundOf(v)) + " after round " + seen + " was published");
                        }
                        if (rnd.nextInt(20) == 0) {
                            checkSnapshotScan(store);
                        }
                    }
                    return null;
                }));
            }
            others.add(pool.submit(() -> {
                while (!done.get()) {
                    store.compact();
                    Thread.sleep(20);
                }
                return null;
            }));
            for (Future<?> f : writers) {
                f.get(2, TimeUnit.MINUTES);
            }
            done.set(true);
            for (Future<?> f : others) {
                f.get(2, TimeUnit.MINUTES);
            }
            checkFinal(store);
            StoreStats s = store.stats();
            System.out.printf("concurrent: %d compactions, %d flushes, write amplification %.2f%n", s.compactions(),
                    s.flushes(), s.writeAmplification());
            assertTrue(s.compactions() > 0);
        } finally {
            pool.shutdownNow();
        }
        try (Store store = Store.open(fs, dir, options)) {
            checkFinal(store);
        }
    }

    /** A snapshot scan shows, per writer, every key at one round (batches are atomic). */
    private static void checkSnapshotScan(Store store) {
        try (Snapshot s = store.snapshot();
             StoreIterator it = store.iterator(null, null, ReadOptions.at(s))) {
            byte[] previous = null;
            int[] count = new int[WRITERS];
            int[] round = new int[WRITERS];
            Arrays.fill(round, -1);
            while (it.hasNext()) {
                KeyValue kv = it.next();
                assertTrue(previous == null || Arrays.compareUnsigned(previous, kv.key()) < 0, "scan out of order");
                previous = kv.key();
                int w = kv.key()[1] - '0';
                int r = roundOf(kv.value());
                assertTrue(round[w] < 0 || round[w] == r, "writer " + w + " seen at rounds " + round[w] + " and " + r);
                round[w] = r;
                count[w]++;
            }
            for (int w = 0; w < WRITERS; w++) {
                assertTrue(count[w] == 0 || count[w] == KEYS_PER_WRITER, "writer " + w + " has " + count[w] + " keys");
            }
        }
    }

    private static void checkFinal(Store store) throws Exception {
        for (int w = 0; w < WRITERS; w++) {
            for (int i = 0; i < KEYS_PER_WRITER; i++) {
                assertArrayEquals(value(ROUNDS - 1, i), store.get(key(w, i)));
            }
        }
        int n = 0;
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        assertEquals(WRITERS * KEYS_PER_WRITER, n);
    }

    private static byte[] key(int writer, int i) {
        return String.format("w%d-%05d", writer, i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int round, int i) {
        return String.format("%04d:%s", round, "x".repeat(i % 50)).getBytes(StandardCharsets.US_ASCII);
    }

    private static int roundOf(byte[] v) {
        return Integer.parseInt(new String(v, 0, 4, StandardCharsets.US_ASCII));
    }
}
