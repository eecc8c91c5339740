package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.ForwardingWritableFile;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code close()} returns only when no thread of the store will touch its directory again (as
 * LevelDB, RocksDB's {@code CancelAllBackgroundWork(wait=true)} and Pebble): a compaction held
 * inside an output table's sync keeps close waiting until the sync returns, and then the
 * compaction's outputs are deleted, so the directory holds exactly the files its version names and
 * can be deleted at once. Before, close returned while such a compaction still wrote its sidecar
 * and synced the directory, and its outputs stayed for the next open to delete.
 */
class CloseWaitsForBackgroundTest {
    private static final int KEYS = 4000;

    @Test
    void closeWaitsForACompactionInsideItsOutputsSyncThenLeavesOnlyLiveFiles() throws Exception {
        Path dir = Path.of("/close-waits/store");
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
        Store store = Store.open(fs, dir, options);
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
            // While the sync is held, close waits (a bound in the safe direction: it must still be waiting).
            try {
                closed.get(300, TimeUnit.MILLISECONDS);
                throw new AssertionError("close returned while a compaction was still inside its output's sync");
            } catch (TimeoutException expected) {
                // waiting, as it must
            }
            release.countDown();
            closed.get(30, TimeUnit.SECONDS);
        } finally {
            release.countDown();
            closer.shutdown();
        }
        List<String> files = mem.list(dir);
        try (Store readOnly = Store.openReadOnly(mem, dir, options)) {
            long tables = files.stream().filter(n -> n.endsWith(".sst")).count();
            assertEquals(readOnly.stats().totalFiles(), tables, "only the version's tables are left: " + files);
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i), readOnly.get(key(i)), "key " + i);
            }
        }
    }

    /**
     * Rounds of heavy writes then close on a real directory, which is then deleted at once: a
     * background thread still writing after close made the delete fail (DirectoryNotEmptyException)
     * or left files behind. Also no thread of the store survives its close.
     */
    @Test
    void theDirectoryCanBeDeletedRightAfterClose(@TempDir Path root) throws Exception {
        StoreOptions options = StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10).build();
        for (int round = 0; round < 5; round++) {
            String name = "close-waits-" + round + "-" + System.nanoTime();
            Path dir = root.resolve(name);
            Store store = Store.open(LocalFileSystem.INSTANCE, dir, options);
            for (int i = 0; i < KEYS; i++) {
                store.put(key((i * 7919) % KEYS), value(i));
            }
            store.close();
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
            Thread.sleep(50);
            assertFalse(Files.exists(dir), "round " + round + ": something wrote into the store after close");
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().contains(name)) {
                    // its pool has terminated: the thread is past its last task, leaving run()
                    t.join(2000);
                    assertFalse(t.isAlive(), "round " + round + ": " + t.getName() + " outlived close");
                }
            }
        }
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8);
    }
}
