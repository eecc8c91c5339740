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
 * {@code close()} waits for the flush that is running, not for the ones queued behind it: their
 * memtables' WAL segments were synced when they were switched out, so the next open replays them
 * and nothing is lost, even after a machine crash right after the close.
 */
class CloseSkipsQueuedFlushesTest {
    private static final Path DIR = Path.of("/close-skips-flushes");
    private static final long MEMTABLE_BYTES = 256 << 10;

    @Test
    void closeLeavesQueuedFlushesToTheWal() throws Exception {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, 3);
        StoreOptions options = StoreOptions.builder().memtableBytes(MEMTABLE_BYTES).autoCompaction(false).build();
        CountDownLatch flushing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Store store = Store.open(fs, DIR, options);
        // the first flush stops as it creates its table, so the next full memtable queues behind it
        fs.beforeCreate(p -> {
            if (p.getFileName().toString().endsWith(".sst") && flushing.getCount() > 0) {
                flushing.countDown();
                awaitQuietly(release);
            }
        });
        int written = 0;
        // two memtables' worth and a bit: one flush running (held), one queued, one memtable current
        while (written < 2.5 * MEMTABLE_BYTES / VALUE_BYTES) {
            store.put(key(written), value(written));
            written++;
        }
        assertTrue(flushing.await(30, TimeUnit.SECONDS), "the first flush never started");
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            try {
                store.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Thread.sleep(200); // close is waiting for the held flush, and only for it
        release.countDown();
        closing.get(30, TimeUnit.SECONDS);
        long tables = mem.list(DIR).stream().filter(n -> n.endsWith(".sst")).count();
        long segments = mem.list(DIR).stream().filter(n -> n.endsWith(".log")).count();
        assertEquals(1, tables, "only the running flush wrote a table: " + mem.list(DIR));
        assertTrue(segments >= 2, "the queued memtable's segment and the current one stay: " + mem.list(DIR));

        mem.dropUnsyncedData(); // a machine crash right after the close keeps everything
        try (Store reopened = Store.open(mem, DIR, options)) {
            for (int i = 0; i < written; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "key " + i);
            }
        }
    }
}
