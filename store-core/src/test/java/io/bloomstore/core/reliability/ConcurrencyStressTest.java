package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
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
 * Readers, writers, iterators, flushes and compactions (background ones, and {@code compact()}
 * every 2 s) together on a real (mapped) store for a fixed time, checked against a model: each
 * writer owns a key range and writes ever-increasing counter values (single puts and batches),
 * recording each acknowledged value. A reader's get must return at least the value acknowledged
 * before it started and at most the writer's counter after it returned (never an unwritten or an
 * older value); an iterator must see every key acknowledged before it opened, with such values,
 * in order. Afterwards the store is reopened and every key must hold its last acknowledged value.
 * Memory stays bounded: during the run the mapped filters are never more than the live tables'
 * plus those of replaced tables still being read, once compactions settle they are exactly the
 * live tables' (no mapping leaks while flushes add tables and compactions replace them), all are
 * unmapped at close, and the heap after the run is far below the data written. CI runs 15 s;
 * {@code -Pstress} 2 min ({@code -Dbloomstore.stress.seconds=N}).
 */
class ConcurrencyStressTest {
    private static final int WRITERS = 2;
    private static final int KEYS = 2000;
    /**
     * Small memtables and tiny levels (level 1 of 16 KiB, each level 4× the one above, 8 KiB
     * tables) so background compactions run all the time, several levels deep.
     */
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(128 * 1024).blockSize(1024)
            .baseLevelBytes(16 * 1024).levelSizeRatio(4).targetFileBytes(8 * 1024).build();

    @TempDir
    Path tmp;

    @Test
    void readersWritersIteratorsFlushesAndCompactionsAgreeWithTheModel() throws Exception {
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
        AtomicLong compacts = new AtomicLong();
        long maxMappingsSeen = 0;
        long maxExcessMappings = 0;
        int maxTablesSeen = 0;
        long maxHeapSeen = 0;
        Store store = Store.open(dir, OPTIONS);
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 5);
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
        tasks.add(pool.submit(() -> {
            while (!stop.get()) {
                Thread.sleep(2000);
                store.compact();
                compacts.incrementAndGet();
            }
            return null;
        }));
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(500);
            int live = store.stats().totalFiles();
            long mappings = MappedBitStore.openMappings() - mappingsBefore;
            maxMappingsSeen = Math.max(maxMappingsSeen, mappings);
            maxTablesSeen = Math.max(maxTablesSeen, live);
            maxExcessMappings = Math.max(maxExcessMappings, mappings - live);
            maxHeapSeen = Math.max(maxHeapSeen, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
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
        store.awaitCompactions();
        StoreStats stats = store.stats();
        int tables = stats.totalFiles();
        assertTrue(stats.compactions() > compacts.get(), "background compactions ran beside compact()");
        // Beyond the live tables only replaced ones still read: by the one scan, the two gets and
        // the compaction in progress (its inputs and the outputs it has written so far).
        assertTrue(maxExcessMappings <= 4L * maxTablesSeen + 16, "mappings beyond the live tables: "
                + maxExcessMappings + " with at most " + maxTablesSeen + " live tables");
        assertEquals(tables, MappedBitStore.openMappings() - mappingsBefore,
                "one mapping per live table's filter, none leaked");
        assertEquals(store.stats().filterBytes(), store.stats().levels().stream()
                .mapToLong(l -> l.filterFileBytes()).sum(), "mapped filter bytes are the live filters'");
        store.close();
        assertEquals(mappingsBefore, MappedBitStore.openMappings(), "every filter unmapped at close");
        long heap = usedHeap();
        long dataWritten = writes.get() * 60;
        System.out.printf("ConcurrencyStressTest: %d s, %d writes, %d gets, %d keys scanned, %d flushes checked, "
                + "%d compact() calls and %d compactions in all (write amplification %.2f); %d tables at the end "
                + "(down to level %d), at most %d live, at most %d filters mapped (%d beyond the live tables); "
                + "heap at most %d MiB during the run, %d MiB after%n", seconds, writes.get(), reads.get(),
                scanned.get(), flushes.get(), compacts.get(), stats.compactions(), stats.writeAmplification(), tables,
                deepest(stats), maxTablesSeen, maxMappingsSeen, maxExcessMappings, maxHeapSeen >> 20, heap >> 20);
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

    private static int deepest(StoreStats stats) {
        return stats.levels().stream().filter(l -> l.files() > 0).mapToInt(StoreStats.LevelStats::level).max()
                .orElse(-1);
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
