package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Gets keep a per-thread reference on the read view instead of a shared count: a thread that read
 * once and then went idle must not keep replaced tables on disk past the next version change, nor
 * keep any table open past close; and gets racing flushes and compactions on several threads see
 * every acknowledged write.
 */
class ViewCacheTest {
    private static final Path DIR = Path.of("/view-cache/store");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long tableFiles(MemoryFileSystem fs) throws Exception {
        return fs.list(DIR).stream().filter(name -> name.endsWith(".sst")).count();
    }

    @Test
    void anIdleReaderThreadDoesNotPinReplacedTables() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        StoreOptions options = StoreOptions.builder().autoCompaction(false).build();
        ExecutorService idle = Executors.newSingleThreadExecutor();
        try (Store store = Store.open(fs, DIR, options)) {
            DbImpl db = (DbImpl) store;
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < 100; i++) {
                    store.put(b("key" + i), b("v" + t));
                }
                store.flush();
            }
            assertEquals(3, tableFiles(fs));
            // Another thread reads once, then stays idle holding its slot.
            assertArrayEquals(b("v2"), idle.submit(() -> store.get(b("key5"))).get());
            store.compact();
            db.tables().awaitReclaimed();
            assertEquals(1, tableFiles(fs), "the three replaced tables are deleted while the reader idles");
            assertArrayEquals(b("v2"), idle.submit(() -> store.get(b("key5"))).get());
        } finally {
            idle.shutdownNow();
        }
    }

    @Test
    void closeLetsGoOfEveryThreadsView() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        ExecutorService readers = Executors.newFixedThreadPool(3);
        Store store = Store.open(fs, DIR, StoreOptions.builder().autoCompaction(false).build());
        DbImpl db = (DbImpl) store;
        store.put(b("k"), b("v"));
        store.flush();
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(b("v"), readers.submit(() -> store.get(b("k"))).get());
        }
        store.close();
        assertEquals(0, db.tables().openTables(), "tables still open after close");
        readers.shutdownNow();
    }

    @Test
    void getsOnSeveralThreadsSeeEveryWriteThroughFlushesAndCompactions() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        StoreOptions options = StoreOptions.builder().memtableBytes(16 << 10).l0Triggers(2, 8, 12).build();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        AtomicBoolean stop = new AtomicBoolean();
        try (Store store = Store.open(fs, DIR, options)) {
            int keys = 5_000;
            // Keys below `written` are acknowledged: every reader must find them.
            int[] written = {0};
            List<Future<Long>> checks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                checks.add(pool.submit(() -> {
                    long reads = 0;
                    SplittableRandom rnd = new SplittableRandom(20261124);
                    while (!stop.get()) {
                        int upTo;
                        synchronized (written) {
                            upTo = written[0];
                        }
                        if (upTo == 0) {
                            continue;
                        }
                        int i = rnd.nextInt(upTo);
                        byte[] v = store.get(b("key" + i));
                        assertArrayEquals(b("value" + i), v, "key" + i);
                        assertNull(store.get(b("absent" + i)));
                        reads++;
                    }
                    return reads;
                }));
            }
            for (int i = 0; i < keys; i++) {
                store.put(b("key" + i), b("value" + i));
                synchronized (written) {
                    written[0] = i + 1;
                }
            }
            store.compact();
            stop.set(true);
            for (Future<Long> f : checks) {
                assertTrue(f.get() > 0);
            }
            assertFalse(store.stats().levels().get(0).files() > 12);
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }
}
