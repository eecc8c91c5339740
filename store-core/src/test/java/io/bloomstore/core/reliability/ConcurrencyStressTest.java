package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers, writers, iterators and flushes together on a real (mapped) store for a fixed time,
 * checked against a model: each writer owns a key range and writes ever-increasing counter values
 * (single puts and batches), recording each acknowledged value. A reader's get must return at
 * least the value acknowledged before it started and at most the writer's counter after it
 * returned (never an unwritten or an older value); an iterator must see every key acknowledged
 * before it opened, with such values, in order. Afterwards the store is reopened and every key
 * must hold its last acknowledged value. Memory stays bounded: the mapped filters are exactly
 * the live tables' (no mapping leaks while flushes add tables), all are unmapped at close, and
 * the heap after the run is far below the data written. CI runs 15 s; {@code -Pstress} 2 min
 * ({@code -Dbloomstore.stress.seconds=N}).
 */
class ConcurrencyStressTest {
    private static final int WRITERS = 2;
    private static final int KEYS = 2000;
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(128 * 1024).blockSize(1024)
            .build();

    @TempDir
    Path tmp;

    @Test
    void readersWritersIteratorsAndFlushesAgreeWithTheModel() throws Exception {
        run(15);
    }

    @Test
    @Tag("stress")
    void longConcurrencyRun() throws Exception {
        run(Integer.getInteger("bloomstore.stress.seconds", 120));
    }

    private static byte[] key(int writer, int k) {
        return String.format("w%d-%06d", writer, k).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(long counter) {
        return ByteBuffer.allocate(8 + (int) (counter % 100)).putLong(counter).array();
    }

    private static long counterOf(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }

    private void run(int seconds) throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("ConcurrencyStressTest seed " + seed + ", " + seconds + " s");
        Path dir = tmp.resolve("stress");
        long mappingsBefore = MappedBitStore.openMappings();
        AtomicLongArray[] acked = new AtomicLongArray[WRITERS];
        AtomicLong[] counters = new AtomicLong[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            acked[w] = new AtomicLongArray(KEYS);
            counters[w] = new AtomicLong();
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicLong scanned = new AtomicLong();
        AtomicLong flushes = new AtomicLong();
        long maxMappingsSeen = 0;
        Store store = Store.open(dir, OPTIONS);
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 4);
        List<Future<?>> tasks = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Random rnd = new Random(seed + w);
            tasks.add(pool.submit(() -> {
                while (!stop.get()) {
                    int n = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(8) : 1;
                    WriteBatch batch = new WriteBatch();
                    int[] keys = new int[n];
                    long[] values = new long[n];
                    for (int i = 0; i < n; i++) {
                        keys[i] = rnd.nextInt(KEYS);
                        values[i] = counters[writer].incrementAndGet();
                        batch.put(key(writer, keys[i]), value(values[i]));
                    }
                    store.write(batch, rnd.nextInt(20) == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                    for (int i = 0; i < n; i++) {
                        acked[writer].accumulateAndGet(keys[i], values[i], Math::max);
                    }
                    writes.addAndGet(n);
                }
                return null;
            }));
        }
        for (int r = 0; r < 2; r++) {
            Random rnd = new Random(seed + 100 + r);
            tasks.add(pool.submit(() -> {
                while (!stop.get()) {
                    int w = rnd.nextInt(WRITERS);
                    int k = rnd.nextInt(KEYS);
                    long before = acked[w].get(k);
                    byte[] v = store.get(key(w, k));
                    long after = counters[w].get();
                    if (v == null) {
                        assertEquals(0, before, "key acknowledged but absent");
                    } else {
                        long c = counterOf(v);
                        assertTrue(c >= before && c <= after, "value " + c + " outside [" + before + ", " + after + "]");
                    }
                    reads.incrementAndGet();
                }
                return null;
            }));
        }
        Random scanRnd = new Random(seed + 200);
        tasks.add(pool.submit(() -> {
            while (!stop.get()) {
                int w = scanRnd.nextInt(WRITERS);
                long[] before = new long[KEYS];
                for (int k = 0; k < KEYS; k++) {
                    before[k] = acked[w].get(k);
                }
                boolean reverse = scanRnd.nextBoolean();
                try (StoreIterator it = reverse ? store.reverseIterator(key(w, 0), key(w, KEYS))
                        : store.iterator(key(w, 0), key(w, KEYS))) {
                    int expect = reverse ? KEYS - 1 : 0;
                    while (it.hasNext()) {
                        KeyValue kv = it.next();
                        int k = Integer.parseInt(new String(kv.key(), StandardCharsets.US_ASCII).substring(3));
                        for (; expect != k; expect += reverse ? -1 : 1) {
                            assertEquals(0, before[expect], "scan skipped acknowledged key " + expect);
                        }
                        assertTrue(counterOf(kv.value()) >= before[k], "scan saw an older value of " + k);
                        expect += reverse ? -1 : 1;
                        scanned.incrementAndGet();
                    }
                }
            }
            return null;
        }));
        tasks.add(pool.submit(() -> {
            while (!stop.get()) {
                Thread.sleep(300);
                store.flush();
                flushes.incrementAndGet();
            }
            return null;
        }));
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(500);
            long mappings = MappedBitStore.openMappings() - mappingsBefore;
            maxMappingsSeen = Math.max(maxMappingsSeen, mappings);
            for (Future<?> f : tasks) {
                if (f.isDone()) {
                    f.get();
                }
            }
        }
        stop.set(true);
        for (Future<?> f : tasks) {
            f.get();
        }
        pool.shutdown();
        store.flush();
        int tables = store.stats().totalFiles();
        assertEquals(tables, MappedBitStore.openMappings() - mappingsBefore,
                "one mapping per live table's filter, none leaked");
        assertEquals(store.stats().filterBytes(), store.stats().levels().stream()
                .mapToLong(l -> l.filterFileBytes()).sum(), "mapped filter bytes are the live filters'");
        store.close();
        assertEquals(mappingsBefore, MappedBitStore.openMappings(), "every filter unmapped at close");
        long heap = usedHeap();
        long dataWritten = writes.get() * 60;
        System.out.printf("ConcurrencyStressTest: %d s, %d writes, %d gets, %d keys scanned, %d flushes checked; "
                + "%d tables, at most %d filters mapped, heap after run %d MiB%n", seconds, writes.get(), reads.get(),
                scanned.get(), flushes.get(), tables, maxMappingsSeen, heap >> 20);
        assertTrue(heap < 512L << 20, "heap " + heap + " after writing about " + dataWritten + " bytes");
        try (Store reopened = Store.open(dir, OPTIONS)) {
            for (int w = 0; w < WRITERS; w++) {
                for (int k = 0; k < KEYS; k++) {
                    byte[] v = reopened.get(key(w, k));
                    long want = acked[w].get(k);
                    assertEquals(want, v == null ? 0 : counterOf(v), "writer " + w + " key " + k + " after reopen");
                }
            }
        }
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
