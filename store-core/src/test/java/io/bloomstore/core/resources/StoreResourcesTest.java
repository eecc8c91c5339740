package io.bloomstore.core.resources;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreResources;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many stores on one {@link StoreResources}: their threads do not grow with their number, their
 * memtables together stay within the budget plus one memtable, one store closes while the others
 * write, the shared block cache counts each store's blocks apart, a store's background error stays
 * its own, and the resources refuse to close under open stores. In-memory file systems; seeds printed.
 */
class StoreResourcesTest {
    private static final long MEMTABLE = 256 << 10;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[200];
        ByteBuffer.wrap(v).putInt(i);
        return v;
    }

    private static long bloomStoreThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith("bloomstore"))
                .count();
    }

    private static List<Store> open(MemoryFileSystem fs, StoreResources r, int n, String prefix) throws IOException {
        List<Store> stores = new ArrayList<>();
        StoreOptions options = StoreOptions.builder().resources(r).memtableBytes(MEMTABLE).build();
        for (int i = 0; i < n; i++) {
            stores.add(Store.open(fs, Path.of("/" + prefix + "/s" + i), options));
        }
        return stores;
    }

    @Test
    void threadsDoNotGrowWithTheNumberOfStores() throws Exception {
        long before = bloomStoreThreads();
        try (StoreResources r = StoreResources.builder().backgroundThreads(2).build()) {
            MemoryFileSystem fs = new MemoryFileSystem();
            List<Store> stores = open(fs, r, 300, "threads");
            assertEquals(300, r.stores());
            for (int round = 0; round < 3; round++) {
                for (int s = 0; s < stores.size(); s++) {
                    for (int i = 0; i < 50; i++) {
                        stores.get(s).put(key(i + round * 50), value(i));
                    }
                    stores.get(s).flush();
                }
            }
            long during = bloomStoreThreads() - before;
            // 2 compaction threads, 1 flush, 1 reclaim, 1 memtable-budget, and the JVM-wide sync
            // pools (one thread per sync running at once): never one per store.
            assertTrue(during <= 12, "BloomStore threads with 300 stores open: " + during);
            for (Store s : stores) {
                assertArrayEquals(value(7), s.get(key(107)));
                s.close();
            }
            assertEquals(0, r.stores());
        }
    }

    @Test
    void theMemtableBudgetHoldsWithManyWritersOverManyStores() throws Exception {
        long seed = System.nanoTime();
        System.out.println("StoreResourcesTest budget seed " + seed);
        long budget = 4L << 20;
        try (StoreResources r = StoreResources.builder().memtableBudgetBytes(budget).backgroundThreads(2).build()) {
            MemoryFileSystem fs = new MemoryFileSystem();
            List<Store> stores = open(fs, r, 100, "budget");
            AtomicLong most = new AtomicLong();
            AtomicBoolean done = new AtomicBoolean();
            Thread watcher = new Thread(() -> {
                while (!done.get()) {
                    most.accumulateAndGet(r.memtableBytes(), Math::max);
                    Thread.onSpinWait();
                }
            });
            watcher.start();
            ExecutorService writers = Executors.newFixedThreadPool(8);
            List<Future<?>> work = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                long s = seed + w;
                work.add(writers.submit(() -> {
                    Random rnd = new Random(s);
                    for (int i = 0; i < 6_000; i++) {
                        int k = rnd.nextInt(1_000_000);
                        stores.get(rnd.nextInt(stores.size())).put(key(k), value(k));
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get(120, TimeUnit.SECONDS);
            }
            done.set(true);
            watcher.join();
            writers.shutdown();
            // Tolerance: one memtable, and one write group beyond it per writer thread.
            long bound = budget + MEMTABLE + 8 * 4096;
            assertTrue(most.get() <= bound, "memtables held " + most.get() + " bytes, budget " + budget + " (seed " + seed + ")");
            assertTrue(most.get() > budget / 2, "the writes filled the budget: " + most.get());
            for (Store s : stores) {
                s.close();
            }
            assertEquals(0, r.memtableBytes(), "closed stores hold no budget");
        }
    }

    @Test
    void aStoreClosesWhileTheOthersWriteAndAQuietStoreIsStillFlushed() throws Exception {
        long budget = 2L << 20;
        try (StoreResources r = StoreResources.builder().memtableBudgetBytes(budget).backgroundThreads(2).build()) {
            MemoryFileSystem fs = new MemoryFileSystem();
            List<Store> stores = open(fs, r, 10, "close-one");
            Store quiet = stores.get(9);
            quiet.put(key(-1), value(-1));
            ExecutorService writers = Executors.newFixedThreadPool(2);
            Future<?> busy = writers.submit(() -> {
                for (int i = 0; i < 40_000; i++) {
                    stores.get(i % 8).put(key(i), value(i));
                }
                return null;
            });
            stores.get(8).put(key(5), value(5));
            stores.get(8).close();
            busy.get(120, TimeUnit.SECONDS);
            writers.shutdown();
            // The quiet store's one write went to a table: the budget switched its memtable too.
            assertTrue(fs.list(Path.of("/close-one/s9")).stream().anyMatch(n -> n.endsWith(".sst")),
                    "the store that took one write was flushed: " + fs.list(Path.of("/close-one/s9")));
            assertArrayEquals(value(-1), quiet.get(key(-1)));
            for (int i = 0; i < 8; i++) {
                stores.get(i).close();
            }
            quiet.close();
            try (Store reopened = Store.open(fs, Path.of("/close-one/s8"), StoreOptions.builder().resources(r).build())) {
                assertArrayEquals(value(5), reopened.get(key(5)));
            }
        }
    }

    @Test
    void theSharedCacheCountsEachStoresBlocks() throws Exception {
        try (StoreResources r = StoreResources.builder().blockCacheBytes(1L << 20).build()) {
            MemoryFileSystem fs = new MemoryFileSystem();
            List<Store> stores = open(fs, r, 2, "cache");
            for (Store s : stores) {
                for (int i = 0; i < 20_000; i++) {
                    s.put(key(i), value(i));
                }
                s.flush();
            }
            // Read twice: the cache admits a block on its second miss.
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 20_000; i += 3) {
                    for (Store s : stores) {
                        assertArrayEquals(value(i), s.get(key(i)));
                    }
                }
            }
            long a = stores.get(0).stats().blockCacheBytes();
            long b = stores.get(1).stats().blockCacheBytes();
            assertTrue(a > 0 && b > 0, a + ", " + b);
            assertEquals(r.blockCacheUsedBytes(), a + b);
            assertTrue(a + b <= 1L << 20, "the shared capacity bounds both: " + (a + b));
            assertTrue(stores.get(0).stats().blockCacheHits() > 0 && stores.get(1).stats().blockCacheHits() > 0);
            for (Store s : stores) {
                s.close();
            }
            assertEquals(0, r.blockCacheUsedBytes(), "closed stores' blocks leave the cache");
        }
    }

    @Test
    void resourcesRefuseToCloseUnderOpenStoresAndClosedOnesRefuseStores() throws Exception {
        StoreResources r = StoreResources.builder().build();
        MemoryFileSystem fs = new MemoryFileSystem();
        Store s = Store.open(fs, Path.of("/refuse/a"), StoreOptions.builder().resources(r).build());
        IllegalStateException e = assertThrows(IllegalStateException.class, r::close);
        assertTrue(e.getMessage().contains("close the 1 stores"), e.getMessage());
        s.close();
        r.close();
        assertThrows(IllegalStateException.class,
                () -> Store.open(fs, Path.of("/refuse/b"), StoreOptions.builder().resources(r).build()));
        assertThrows(IllegalStateException.class, () -> StoreResources.shared().close());
    }

    /**
     * One store's disk fails under its flush: that store turns read-only and says why, while a
     * store on the same resources (same pool, budget and cache) keeps writing and flushing, and
     * both close, and the resources with them.
     */
    @Test
    void aStoresBackgroundErrorStaysItsOwn() throws Exception {
        AtomicBoolean full = new AtomicBoolean();
        MemoryFileSystem memory = new MemoryFileSystem();
        FileSystem failing = new ForwardingFileSystem(memory) {
            @Override
            public WritableFile create(Path path) throws IOException {
                if (full.get() && path.getFileName().toString().endsWith(".sst")) {
                    throw new IOException("No space left on device (injected)");
                }
                return super.create(path);
            }
        };
        try (StoreResources r = StoreResources.builder().memtableBudgetBytes(4L << 20).backgroundThreads(2).build()) {
            StoreOptions options = StoreOptions.builder().resources(r).memtableBytes(MEMTABLE).build();
            Store sick = Store.open(failing, Path.of("/own-error/sick"), options);
            Store healthy = Store.open(memory, Path.of("/own-error/healthy"), options);
            sick.put(key(1), value(1));
            full.set(true);
            IOException flush = assertThrows(IOException.class, sick::flush);
            assertTrue(flush.getMessage().contains("No space left"), flush.getMessage());
            Exception write = assertThrows(Exception.class, () -> sick.put(key(2), value(2)));
            assertTrue(write instanceof IOException || write instanceof IllegalStateException, write.toString());
            assertArrayEquals(value(1), sick.get(key(1)), "what it held stays readable");
            for (int i = 0; i < 5_000; i++) {
                healthy.put(key(i), value(i));
            }
            healthy.flush();
            assertTrue(memory.list(Path.of("/own-error/healthy")).stream().anyMatch(n -> n.endsWith(".sst")),
                    "the healthy store flushed on the shared pool");
            for (int i = 0; i < 5_000; i += 499) {
                assertArrayEquals(value(i), healthy.get(key(i)));
            }
            // Its close says the last writes may not be durable, and still lets go of the resources.
            IOException closing = assertThrows(IOException.class, sick::close);
            assertTrue(closing.getMessage().contains("failed before close"), closing.getMessage());
            healthy.close();
        }
    }
}
