package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.ForwardingWritableFile;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} does not wait for a background compaction that is inside an output table's
 * final sync (which cannot be cut short, and takes tens to hundreds of milliseconds on a busy
 * machine): the sync of every compaction output is held here until the test lets it go, and close
 * must return meanwhile. Once the sync returns, the compaction sees it was cancelled and leaves
 * the table alone; the next open deletes it, keeps every write and no orphan table.
 */
class CloseDuringTableSyncTest {
    private static final Path DIR = Path.of("/close-during-table-sync/store");
    private static final int KEYS = 4000;

    @Test
    void closeDoesNotWaitForACompactionOutputsSync() throws Exception {
        CountDownLatch syncing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        MemoryFileSystem mem = new MemoryFileSystem();
        FileSystem fs = new ForwardingFileSystem(mem) {
            @Override
            public WritableFile create(Path path) throws IOException {
                WritableFile f = super.create(path);
                if (!path.toString().endsWith(".sst") || !Thread.currentThread().getName().startsWith("bloomstore-compact")) {
                    return f;
                }
                return new ForwardingWritableFile(f) {
                    @Override
                    public void sync() throws IOException {
                        syncing.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        super.sync();
                    }
                };
            }
        };
        StoreOptions options = StoreOptions.builder().memtableBytes(64 << 10).bytesPerSync(0).maxBackgroundJobs(1)
                .build();
        Store store = Store.open(fs, DIR, options);
        for (int i = 0; i < KEYS && syncing.getCount() > 0; i++) {
            store.put(key(i), value(i));
        }
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i));
        }
        assertTrue(syncing.await(30, TimeUnit.SECONDS), "a compaction reached its output's sync");

        ExecutorService closer = Executors.newSingleThreadExecutor();
        try {
            Future<?> closed = closer.submit(() -> {
                store.close();
                return null;
            });
            // Without the fix, close waits for the held sync and this times out.
            closed.get(10, TimeUnit.SECONDS);
            assertEquals(1, release.getCount(), "close returned while the output's sync was still held");
        } finally {
            release.countDown();
            closer.shutdown();
        }
        try (Store reopened = Store.open(fs, DIR, options)) {
            reopened.awaitCompactions();
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "key " + i);
            }
            long tableFiles = mem.list(DIR).stream().filter(n -> n.endsWith(".sst")).count();
            assertEquals(reopened.stats().totalFiles(), tableFiles, "no orphan table is left: " + mem.list(DIR));
        }
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8);
    }
}
