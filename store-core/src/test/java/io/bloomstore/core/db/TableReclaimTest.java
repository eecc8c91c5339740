package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table a compaction replaced is closed, unmapped and deleted off the reader's thread: when an
 * iterator that still held it is closed, the deletion runs on the store's reclaim thread, and an
 * unchecked exception there (injected into the delete) is logged, never thrown to the reader. The
 * file left behind is deleted as an orphan by the next open.
 */
class TableReclaimTest {
    private static final Path DIR = Path.of("/table-reclaim/store");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void replacedTableIsReclaimedOffTheReadersThread() throws Exception {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, 2);
        StoreOptions options = StoreOptions.builder().autoCompaction(false).build();
        AtomicReference<String> deletingThread = new AtomicReference<>();
        CountDownLatch deleted = new CountDownLatch(1);
        try (Store store = Store.open(fs, DIR, options)) {
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < 100; i++) {
                    store.put(b("key" + i), b("v" + t));
                }
                store.flush();
            }
            StoreIterator held = store.iterator(null, null);
            assertTrue(held.hasNext());
            store.compact();
            fs.beforeDelete(p -> {
                if (p.toString().endsWith(".sst")) {
                    deletingThread.compareAndSet(null, Thread.currentThread().getName());
                    deleted.countDown();
                    throw new IllegalStateException("injected: delete failed");
                }
            });
            assertDoesNotThrow(held::close, "closing the last reader of a replaced table");
            assertTrue(deleted.await(10, TimeUnit.SECONDS), "the replaced tables were deleted");
            assertNotNull(deletingThread.get());
            assertNotEquals(Thread.currentThread().getName(), deletingThread.get());
            assertTrue(deletingThread.get().startsWith("bloomstore-reclaim-"), deletingThread.get());
            assertArrayEquals(b("v2"), store.get(b("key7")));
            fs.heal();
        }
        try (Store store = Store.open(mem, DIR, options)) {
            assertArrayEquals(b("v2"), store.get(b("key7")));
            store.awaitCompactions();
        }
        assertTrue(StoreVerifier.verify(mem, DIR).warnings().isEmpty(), "the next open deleted the leftovers");
    }

    /**
     * The background check of a table's filter sidecar holds the table; when the table is replaced
     * meanwhile, the check lets go of its last reference on the reclaim thread itself. Its
     * reclaiming must happen before {@code awaitCompactions} returns, not queued behind the marker
     * that call waits for (a test once found the replaced table still on disk). Deletions are made
     * slow (100 ms) so that a reclaiming left queued is still deleting when the call returns.
     */
    @Test
    void aTableReleasedByItsFilterCheckIsDeletedBeforeAwaitCompactionsReturns(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        StoreOptions options = StoreOptions.builder().autoCompaction(false).build();
        try (Store store = Store.open(dir, options)) {
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < 100; i++) {
                    store.put(b("key" + i), b("v" + t));
                }
                store.flush();
            }
        }
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 3);
        CountDownLatch checking = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        try (Store store = Store.open(fs, dir, options)) {
            fs.beforeRead(p -> {
                if (p.toString().endsWith(".filter") && Thread.currentThread().getName().startsWith("bloomstore-reclaim-")
                        && checking.getCount() > 0) {
                    checking.countDown();
                    awaitUninterruptibly(proceed);
                }
            });
            // The get opens the newest table, whose sidecar check starts on the reclaim thread and waits.
            assertArrayEquals(b("v2"), store.get(b("key7")));
            assertTrue(checking.await(10, TimeUnit.SECONDS), "the sidecar check started");
            store.compact();
            fs.beforeDelete(p -> sleepUninterruptibly(100));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    store.awaitCompactions();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "waiter");
            waiter.start();
            // Until the waiter has queued its marker behind the held check (it then waits on its result).
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!waitsForReclaim(waiter) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(waitsForReclaim(waiter), "awaitCompactions waits behind the sidecar check");
            proceed.countDown();
            waiter.join(10_000);
            assertEquals(null, failure.get());
            StoreStats s = store.stats();
            assertEquals(s.totalFiles(), tableFiles(dir), "the replaced tables were deleted before the call returned");
        }
    }

    /**
     * Orphan tables an open finds (here: copies of live tables under unused numbers, as a crash
     * during a compaction leaves its outputs) are deleted on the store's background thread, not by
     * the open: with their deletes held back, the open still returns, reads answer, and
     * {@code awaitCompactions} returns once they are gone. A close while they are held back waits
     * for the rest: a closed store leaves no file its version does not name.
     */
    @Test
    void anOpenLeavesOrphanTablesToItsBackgroundThread(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        StoreOptions options = StoreOptions.builder().autoCompaction(false).build();
        try (Store store = Store.open(dir, options)) {
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < 100; i++) {
                    store.put(b("key" + i), b("v" + t));
                }
                store.flush();
            }
        }
        long live;
        try (Store store = Store.openReadOnly(dir, options)) {
            live = store.stats().totalFiles();
        }
        for (int round = 0; round < 2; round++) {
            List<Path> tables;
            try (Stream<Path> s = Files.list(dir)) {
                tables = s.filter(p -> p.toString().endsWith(".sst")).sorted().toList();
            }
            for (int k = 0; k < 3; k++) {
                Files.copy(tables.get(k % tables.size()), dir.resolve(String.format("%06d.sst", 900_000 + 10 * round + k)));
            }
            assertEquals(live + 3, tableFiles(dir));
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 5);
            CountDownLatch deleting = new CountDownLatch(1);
            CountDownLatch proceed = new CountDownLatch(1);
            fs.beforeDelete(p -> {
                if (p.toString().endsWith(".sst")) {
                    deleting.countDown();
                    awaitUninterruptibly(proceed);
                }
            });
            Store store = Store.open(fs, dir, options);
            try {
                assertTrue(deleting.await(10, TimeUnit.SECONDS), "the orphans' deletion started");
                assertTrue(tableFiles(dir) > live, "the open returned with orphans still on disk");
                assertArrayEquals(b("v2"), store.get(b("key7")));
                if (round == 0) {
                    // Closed while the first delete is held: close waits for all of them.
                    Thread release = new Thread(() -> {
                        sleepUninterruptibly(100);
                        proceed.countDown();
                    });
                    release.start();
                    store.close();
                    release.join();
                    assertEquals(live, tableFiles(dir), "the close deleted every orphan before it returned");
                } else {
                    proceed.countDown();
                    store.awaitCompactions();
                    assertEquals(live, tableFiles(dir), "awaitCompactions returned once the orphans were gone");
                }
            } finally {
                proceed.countDown();
                store.close();
            }
        }
    }

    private static boolean waitsForReclaim(Thread t) {
        if (t.getState() != Thread.State.WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getMethodName().equals("awaitReclaimed")) {
                return true;
            }
        }
        return false;
    }

    private static long tableFiles(Path dir) throws java.io.IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".sst")).count();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepUninterruptibly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
