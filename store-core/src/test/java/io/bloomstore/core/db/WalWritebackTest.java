package io.bloomstore.core.db;

import static io.bloomstore.core.db.KiBRecords.VALUE_BYTES;
import static io.bloomstore.core.db.KiBRecords.key;
import static io.bloomstore.core.db.KiBRecords.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The background WAL writeback: unsynced writes reach the device a megabyte at a time while the
 * writer goes on, and what a machine crash keeps of them is still a prefix of the history.
 */
class WalWritebackTest {
    private static final Path DIR = Path.of("/writeback");
    private static final int KEYS = 3000; // about 3 MiB of WAL: writebacks start at 1 and 2 MiB

    @Test
    void unsyncedWritesAreSyncedInTheBackgroundAndACrashKeepsAPrefix() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        // a memtable larger than everything written: no switch, so no sync but the writeback's
        StoreOptions options = StoreOptions.builder().memtableBytes(64L << 20).build();
        Store store = Store.open(fs, DIR, options);
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i));
        }
        Thread.sleep(500); // the last writeback runs on its own thread
        fs.dropUnsyncedData(); // a machine crash; the store is abandoned, not closed
        try (Store reopened = Store.open(fs, DIR, options)) {
            int kept = 0;
            while (kept < KEYS && reopened.get(key(kept)) != null) {
                assertArrayEquals(value(kept), reopened.get(key(kept)), "key " + kept);
                kept++;
            }
            for (int i = kept; i < KEYS; i++) {
                assertNull(reopened.get(key(i)), "key " + i + " after a hole at " + kept);
            }
            // at least the first megabyte of WAL was synced by a writeback; none of the writes asked
            assertTrue(kept >= (int) (StoreOptions.defaults().bytesPerSync() / (VALUE_BYTES + 64)),
                    "kept " + kept + " of " + KEYS + " unsynced writes");
        }
    }

    @Test
    void bytesPerSyncZeroTurnsWritebackOff() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().bytesPerSync(-1).build());
        MemoryFileSystem fs = new MemoryFileSystem();
        StoreOptions options = StoreOptions.builder().memtableBytes(64L << 20).bytesPerSync(0).build();
        Store store = Store.open(fs, DIR, options);
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i));
        }
        Thread.sleep(500);
        fs.dropUnsyncedData();
        try (Store reopened = Store.open(fs, DIR, options)) {
            assertNull(reopened.get(key(0)), "nothing was synced, so a machine crash keeps nothing");
        }
    }

    @Test
    void closeWaitsForTheWritebackAndSyncsTheRest() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        StoreOptions options = StoreOptions.builder().memtableBytes(64L << 20).build();
        try (Store store = Store.open(fs, DIR, options)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
        }
        fs.dropUnsyncedData();
        try (Store reopened = Store.open(fs, DIR, options)) {
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "key " + i);
            }
            assertEquals(0, reopened.stats().gets() - KEYS);
        }
    }

    @Test
    void aFailedWritebackTurnsTheStoreReadOnlyAndKeepsWhatWasWritten() throws Exception {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, 1);
        StoreOptions options = StoreOptions.builder().memtableBytes(64L << 20).build();
        Store store = Store.open(fs, DIR, options);
        // from now on every sync of a WAL segment fails: the first one is a writeback's, since no
        // put asks for a sync and the memtable never fills
        fs.onlyFiles(p -> p.getFileName().toString().endsWith(".log")).failSyncsAfter(0);
        int written = 0;
        IOException refused = null;
        // The failing sync runs on the store's sync thread: on a loaded machine it may come after
        // the first KEYS puts, so write on (up to ten times as many, far below the memtable) until
        // a put is refused.
        for (; written < 10 * KEYS; written++) {
            try {
                store.put(key(written), value(written));
            } catch (IOException e) {
                refused = e;
                break;
            }
        }
        assertNotNull(refused, "a put after the failed writeback is refused");
        assertTrue(refused.getMessage().contains("injected"), refused.getMessage());
        assertFalse(store.stats().health().writable());
        for (int i = 0; i < written; i++) {
            assertArrayEquals(value(i), store.get(key(i)), "reads go on: key " + i);
        }
        mem.crashProcess(); // the process dies: the OS keeps every byte written
        fs.heal();
        try (Store reopened = Store.open(mem, DIR, options)) {
            for (int i = 0; i < written; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "key " + i + " after reopening");
            }
        }
    }
}
