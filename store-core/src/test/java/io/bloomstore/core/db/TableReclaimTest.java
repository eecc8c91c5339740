package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

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
        }
        assertTrue(StoreVerifier.verify(mem, DIR).warnings().isEmpty(), "the next open deleted the leftovers");
    }
}
