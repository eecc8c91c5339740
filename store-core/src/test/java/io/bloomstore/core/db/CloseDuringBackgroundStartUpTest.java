package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
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
 * {@code close()} does not wait for a compaction or flush task still in its first step, the block
 * codecs' one-time start-up (in a fresh JVM, LZ4's native library: 140–160 ms of a close right
 * after a first open before this), which touches no file of the store and cannot be cut short.
 * The step is held here until the test lets it go; close must return meanwhile, and the task,
 * released, must find the store closed and change nothing: the next open sees the same tables and
 * every write.
 */
class CloseDuringBackgroundStartUpTest {
    private static final Path DIR = Path.of("/close-during-compaction-start-up/start-up-store");
    private static final int TABLES = StoreOptions.defaults().l0CompactionTrigger();

    @Test
    void closeDoesNotWaitForACompactionsStartUp() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        StoreOptions manual = StoreOptions.builder().autoCompaction(false).build();
        try (Store store = Store.open(fs, DIR, manual)) {
            for (int t = 0; t < TABLES; t++) {
                store.put(key(t), value(t));
                store.flush();
            }
        }
        try (HeldStartUp held = new HeldStartUp()) {
            // Level 0 at the trigger: the open schedules a compaction, whose task stops in its first step.
            Store store = Store.open(fs, DIR, StoreOptions.defaults());
            assertTrue(held.started.await(30, TimeUnit.SECONDS), "the open started a compaction task");
            held.assertCloseReturns(store, "the task's start-up");
        }
        // Let the released task run to its end before looking: it must have found the store closed.
        awaitThreadsEnded("bloomstore-compact-start-up-store", "the released compaction task ended");
        try (Store reopened = Store.openReadOnly(fs, DIR, StoreOptions.defaults())) {
            assertEquals(TABLES, reopened.stats().levels().get(0).files(), "the task compacted nothing");
            for (int t = 0; t < TABLES; t++) {
                assertArrayEquals(value(t), reopened.get(key(t)), "key " + t);
            }
        }
    }

    @Test
    void closeDoesNotWaitForAFlushsStartUp() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/close-during-flush-start-up/flush-start-up-store");
        StoreOptions options = StoreOptions.builder().memtableBytes(64 << 10).build();
        int keys = 0;
        try (HeldStartUp held = new HeldStartUp()) {
            Store store = Store.open(fs, dir, options);
            // Up to the first memtable switch (the writer creates the next WAL segment), and no
            // further: a writer that filled the next memtable too would wait for the held flush.
            // The switch queues a flush, whose task stops in its first step.
            while (walSegments(fs, dir) < 2) {
                store.put(key(keys), bigValue(keys));
                keys++;
                assertTrue(keys < 100_000, "the writes switched a memtable");
            }
            assertTrue(held.started.await(30, TimeUnit.SECONDS), "the switch started a flush task");
            held.assertCloseReturns(store, "the flush's start-up");
        }
        awaitThreadsEnded("bloomstore-flush-flush-start-up-store", "the released flush task ended");
        assertTrue(fs.list(dir).stream().noneMatch(n -> n.endsWith(".sst")), "the released flush wrote no table: "
                + fs.list(dir));
        try (Store reopened = Store.openReadOnly(fs, dir, options)) {
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(bigValue(i), reopened.get(key(i)), "key " + i);
            }
        }
    }

    /**
     * Holds every background task in its first step ({@link DbBackground#taskStartUp}) until
     * closed, which restores the real step and lets the held tasks go.
     */
    private static final class HeldStartUp implements AutoCloseable {
        final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Runnable original = DbBackground.taskStartUp;
        private final ExecutorService closer = Executors.newSingleThreadExecutor();

        HeldStartUp() {
            DbBackground.taskStartUp = () -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
        }

        /** Closes {@code store} on another thread: it must return while the step is still held. */
        void assertCloseReturns(Store store, String what) throws Exception {
            Future<?> closed = closer.submit(() -> {
                store.close();
                return null;
            });
            // Without the fix, close waits for the held step and this times out.
            closed.get(10, TimeUnit.SECONDS);
            assertEquals(1, release.getCount(), "close returned while " + what + " was still held");
        }

        @Override
        public void close() throws InterruptedException {
            DbBackground.taskStartUp = original;
            release.countDown();
            closer.shutdown();
            assertTrue(closer.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    private static long walSegments(MemoryFileSystem fs, Path dir) throws IOException {
        return fs.list(dir).stream().filter(n -> n.endsWith(".log")).count();
    }

    private static void awaitThreadsEnded(String prefix, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (threadAlive(prefix)) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(10);
        }
    }

    private static boolean threadAlive(String prefix) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bigValue(int i) {
        return ("value-" + i + "-" + "x".repeat(300)).getBytes(StandardCharsets.UTF_8);
    }
}
