package io.bloomstore.core.db;

import static io.bloomstore.core.db.KiBRecords.VALUE_BYTES;
import static io.bloomstore.core.db.KiBRecords.awaitQuietly;
import static io.bloomstore.core.db.KiBRecords.key;
import static io.bloomstore.core.db.KiBRecords.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A flush's MANIFEST edit is written and synced without the store mutex: while that fsync is
 * slow, writers and readers go on, and the edit, once durable, is installed and survives a reopen.
 */
class ManifestWriteTest {
    private static final Path DIR = Path.of("/manifest-write");
    private static final long MEMTABLE_BYTES = 256 << 10;

    @Test
    void writersAndReadersGoOnWhileAFlushSyncsItsManifestEdit() throws Exception {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, 1);
        StoreOptions options = StoreOptions.builder().memtableBytes(MEMTABLE_BYTES).autoCompaction(false).build();
        CountDownLatch switched = new CountDownLatch(1);
        CountDownLatch syncing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int written = 0;
        Store store = Store.open(fs, DIR, options);
        try {
            // The switch creates the next WAL segment on the writing thread (the finished one is
            // synced later, on the sync pool): the put that switched is the last of this loop.
            fs.beforeCreate(p -> {
                if (p.getFileName().toString().endsWith(".log")) {
                    switched.countDown();
                }
            });
            fs.beforeSync(p -> {
                String name = p.getFileName().toString();
                if (name.startsWith("MANIFEST-") && syncing.getCount() > 0) {
                    syncing.countDown(); // the first flush's edit: its fsync waits for the test
                    awaitQuietly(release);
                }
            });
            // fill one memtable, then stop: the flush thread takes it and its edit reaches the fsync
            while (switched.getCount() > 0) {
                store.put(key(written), value(written));
                written++;
                assertTrue(written < 2 * MEMTABLE_BYTES / VALUE_BYTES, "no memtable switch after " + written + " puts");
            }
            assertTrue(syncing.await(30, TimeUnit.SECONDS), "the flush never synced its MANIFEST edit");
            int before = written;
            // a quarter of a memtable more: no switch, so nothing to wait for but the mutex
            int more = (int) (MEMTABLE_BYTES / VALUE_BYTES / 4);
            CompletableFuture<Void> work = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = before; i < before + more; i++) {
                        store.put(key(i), value(i));
                        assertArrayEquals(value(i - before), store.get(key(i - before)));
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            // before the change the flush held the mutex through the fsync and this timed out
            work.get(30, TimeUnit.SECONDS);
            written += more;
            assertEquals(0, store.stats().flushes(), "the flush is still inside its MANIFEST fsync");
            release.countDown();
            store.flush();
            assertTrue(store.stats().flushes() >= 2, "flushes: " + store.stats().flushes());
            for (int i = 0; i < written; i++) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
        } finally {
            release.countDown();
            store.close();
        }
        mem.dropUnsyncedData();
        try (Store reopened = Store.open(mem, DIR, options)) {
            for (int i = 0; i < written; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "key " + i + " after reopening");
            }
        }
    }
}
