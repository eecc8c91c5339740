package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Concurrent writers (some syncing, some batching) through group commit and memtable switches:
 * every acknowledged write is readable, in memory and after a crash that loses nothing synced.
 */
class GroupCommitTest {
    private static final int THREADS = 4;
    private static final int PER_THREAD = 2000;

    @Test
    void concurrentWritersAllLand() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/group");
        StoreOptions options = StoreOptions.builder().memtableBytes(32 * 1024).build();
        Store store = Store.open(fs, dir, options);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                for (int i = 0; i < PER_THREAD; i += 2) {
                    WriteBatch batch = new WriteBatch().put(key(thread, i), key(thread, i))
                            .put(key(thread, i + 1), key(thread, i + 1));
                    store.write(batch, i % 50 == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        store.put(key(99, 0), key(99, 0), WriteOptions.SYNC);
        checkAll(store);
        fs.dropUnsyncedData();
        try (Store reopened = Store.open(fs, dir, options)) {
            checkAll(reopened);
        }
    }

    private static void checkAll(Store store) throws Exception {
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < PER_THREAD; i++) {
                assertArrayEquals(key(t, i), store.get(key(t, i)), "thread " + t + " key " + i);
            }
        }
    }

    private static byte[] key(int thread, int i) {
        return String.format("t%02d-%06d", thread, i).getBytes(StandardCharsets.UTF_8);
    }
}
