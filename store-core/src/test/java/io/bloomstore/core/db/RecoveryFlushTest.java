package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreResources;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * After a crash, an open that replayed every WAL segment whole leaves the replayed writes to the
 * flush thread (DbFlush.Recovery.FLUSH_IN_BACKGROUND): the store is readable and writable at once,
 * a synced write and close wait for that flush (the replayed segments were another process's, so
 * only a table this process syncs makes them durable), and a second crash before it loses nothing.
 * The flush thread is held by a task queued ahead of it on the resources' one flush thread.
 */
class RecoveryFlushTest {
    private static final Path DIR = Path.of("/recovery-flush/store");
    private static final int KEYS = 500;

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void letTheFlushThreadGo() {
        release.countDown();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A store written (in its default keyspace and in keyspace "k") by a process that then died. */
    private static MemoryFileSystem crashedStore() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Store killed = Store.open(fs, DIR, StoreOptions.defaults());
        Keyspace k = killed.keyspace("k");
        for (int i = 0; i < KEYS; i++) {
            killed.put(b("key" + i), b("value" + i));
            killed.put(k, b("kkey" + i), b("kvalue" + i));
        }
        fs.crashProcess();
        return fs;
    }

    /** Resources whose one flush thread waits for {@link #release}: a recovery flush stays queued. */
    private StoreOptions heldFlushThread() {
        StoreResources r = StoreResources.builder().backgroundThreads(2).build();
        assertEquals(1, SharedResources.of(r).flushPool().getMaximumPoolSize(), "one flush thread");
        SharedResources.of(r).flushPool().execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return StoreOptions.builder().resources(r).build();
    }

    /** A store call that may throw, for {@link #inBackground}. */
    private interface StoreCall {
        void run() throws IOException;
    }

    /** Runs {@code call} on another thread; the future fails with what it threw. */
    private static CompletableFuture<Void> inBackground(StoreCall call) {
        return CompletableFuture.runAsync(() -> {
            try {
                call.run();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static void assertAllThere(Store store) throws IOException {
        Keyspace k = store.keyspace("k");
        for (int i = 0; i < KEYS; i++) {
            assertArrayEquals(b("value" + i), store.get(b("key" + i)), "key" + i);
            assertArrayEquals(b("kvalue" + i), store.get(k, b("kkey" + i)), "kkey" + i);
        }
    }

    @Test
    void theOpenReturnsBeforeTheTableAndASecondCrashLosesNothing() throws IOException {
        MemoryFileSystem fs = crashedStore();
        Store reopened = Store.open(fs, DIR, heldFlushThread());
        Keyspace k = reopened.keyspace("k");
        assertEquals(0, reopened.stats().levels().get(0).files(), "no table written by the open");
        assertEquals(0, reopened.stats(k).levels().get(0).files(), "no table written by the open (keyspace k)");
        assertAllThere(reopened);
        reopened.put(b("later"), b("unsynced"));
        reopened.put(k, b("klater"), b("unsynced"));
        // The process dies again before the flush thread reached the replayed writes.
        fs.crashProcess();
        try (Store again = Store.open(fs, DIR, StoreOptions.defaults())) {
            assertAllThere(again);
            assertArrayEquals(b("unsynced"), again.get(b("later")));
            assertArrayEquals(b("unsynced"), again.get(again.keyspace("k"), b("klater")));
            again.flush();
            assertEquals(1, again.stats().levels().get(0).files(), "the replayed writes flushed at last");
        }
    }

    @Test
    void aSyncedWriteWaitsForTheReplayedWritesTable() throws Exception {
        MemoryFileSystem fs = crashedStore();
        Store reopened = Store.open(fs, DIR, heldFlushThread());
        CompletableFuture<Void> synced = inBackground(() -> reopened.put(b("new"), b("synced"), WriteOptions.SYNC));
        Thread.sleep(200);
        assertFalse(synced.isDone(), "a synced write returned while the replayed writes were in no table");
        release.countDown();
        synced.get(30, TimeUnit.SECONDS);
        assertEquals(1, reopened.stats().levels().get(0).files(), "the replayed writes' table");
        // A power loss now: the synced write and everything before it survive.
        fs.dropUnsyncedData();
        try (Store after = Store.open(fs, DIR, StoreOptions.defaults())) {
            assertAllThere(after);
            assertArrayEquals(b("synced"), after.get(b("new")));
        }
    }

    @Test
    void aKeyspaceDroppedBeforeItsReplayedWritesAreFlushedGoesWhole() throws Exception {
        MemoryFileSystem fs = crashedStore();
        Store reopened = Store.open(fs, DIR, heldFlushThread());
        CompletableFuture<Void> dropped = inBackground(() -> reopened.dropKeyspace("k"));
        Thread.sleep(100);
        release.countDown();
        dropped.get(30, TimeUnit.SECONDS);
        reopened.put(b("new"), b("synced"), WriteOptions.SYNC);
        reopened.close();
        fs.dropUnsyncedData();
        try (Store after = Store.open(fs, DIR, StoreOptions.defaults())) {
            assertEquals(java.util.List.of("default"), after.keyspaces());
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(b("value" + i), after.get(b("key" + i)), "key" + i);
            }
            assertArrayEquals(b("synced"), after.get(b("new")));
        }
    }

    @Test
    void closeWaitsForTheReplayedWritesTable() throws Exception {
        MemoryFileSystem fs = crashedStore();
        Store reopened = Store.open(fs, DIR, heldFlushThread());
        CompletableFuture<Void> closed = inBackground(() -> reopened.close());
        Thread.sleep(200);
        assertFalse(closed.isDone(), "close returned while the replayed writes were in no table");
        release.countDown();
        closed.get(30, TimeUnit.SECONDS);
        // Closed cleanly with the replayed writes in tables: a power loss now loses nothing.
        fs.dropUnsyncedData();
        try (Store after = Store.open(fs, DIR, StoreOptions.defaults())) {
            assertEquals(1, after.stats().levels().get(0).files(), "the table close waited for");
            assertEquals(1, after.stats(after.keyspace("k")).levels().get(0).files(), "keyspace k's table");
            assertAllThere(after);
        }
    }
}
