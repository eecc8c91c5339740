package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.manifest.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery from the WAL after a clean close, a crash, a torn write and damage. */
class RecoveryTest {
    private static final Path DIR = Path.of("/recovery/store");
    private static final StoreOptions OPTIONS = StoreOptions.defaults();

    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void unflushedWritesComeBackAfterCloseWithoutFlush() throws IOException {
        Path dir = tmp.resolve("s");
        try (Store store = Store.open(dir, OPTIONS)) {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
            store.delete(b("a"));
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertNull(store.get(b("a")));
            assertArrayEquals(b("2"), store.get(b("b")));
            // Few and small: the replayed segment stays as it is, its writes the live memtable (KeptWalTest).
            assertEquals(0, store.stats().levels().get(0).files(), "the replayed WAL kept, not written as a table");
            store.flush();
            assertEquals(1, store.stats().levels().get(0).files(), "the flush wrote the replayed writes to a table");
        }
        assertEquals(1, walCount(LocalFileSystem.INSTANCE.list(dir)), "replayed WAL segments deleted by the flush");
    }

    /**
     * A killed process leaves WAL records the operating system holds but no disk does (or whose
     * writeback failed, which only the dead process's descriptors were told). The next open does
     * not keep that segment, however few and small its writes: it writes them to a level-0 table,
     * synced, in the background, and a write synced afterwards waits for that table, so it and
     * everything before it survive a power loss.
     */
    @Test
    void keptSegmentOfAKilledProcessSurvivesALaterPowerLoss() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Store killed = Store.open(fs, DIR, OPTIONS);
        for (int i = 0; i < 20; i++) {
            killed.put(b("old" + i), b("value" + i));
        }
        fs.crashProcess();
        Store reopened = Store.open(fs, DIR, OPTIONS);
        reopened.put(b("new"), b("synced"), WriteOptions.SYNC);
        // The table is written in the background after the open; the synced write waited for it.
        assertEquals(1, reopened.stats().levels().get(0).files(), "the dead process's segment written as a table, not kept");
        fs.dropUnsyncedData();
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            assertArrayEquals(b("synced"), store.get(b("new")));
            for (int i = 0; i < 20; i++) {
                assertArrayEquals(b("value" + i), store.get(b("old" + i)), "old" + i);
            }
        }
    }

    @Test
    void unflushedWritesComeBackAfterAbandonedStore() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Store abandoned = Store.open(fs, DIR, OPTIONS);
        for (int i = 0; i < 100; i++) {
            abandoned.put(b("key" + i), b("value" + i));
        }
        fs.crashProcess();
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(b("value" + i), store.get(b("key" + i)));
            }
        }
    }

    @Test
    void syncedWritesSurviveMachineCrashAndRecoveryIsAPrefix() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Store abandoned = Store.open(fs, DIR, OPTIONS);
        abandoned.put(b("synced"), b("yes"), WriteOptions.SYNC);
        abandoned.put(b("unsynced"), b("maybe"));
        fs.dropUnsyncedData();
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            assertArrayEquals(b("yes"), store.get(b("synced")));
            assertNull(store.get(b("unsynced")));
        }
    }

    @Test
    void tornLastRecordIsDropped() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Store abandoned = Store.open(fs, DIR, OPTIONS);
        abandoned.put(b("first"), b("1"));
        abandoned.write(new WriteBatch().put(b("second"), b("2")).put(b("third"), b("3")), WriteOptions.DEFAULT);
        fs.crashProcess();
        Path wal = onlyWal(fs);
        byte[] bytes = fs.contents(wal);
        fs.setContents(wal, Arrays.copyOf(bytes, bytes.length - 3));
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            assertArrayEquals(b("1"), store.get(b("first")));
            assertNull(store.get(b("second")), "the torn batch is dropped whole");
            assertNull(store.get(b("third")));
        }
    }

    @Test
    void corruptionBeforeTheTailIsAnError() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Store abandoned = Store.open(fs, DIR, OPTIONS);
        abandoned.put(b("first"), b("1"));
        abandoned.put(b("second"), b("2"));
        fs.crashProcess();
        Path wal = onlyWal(fs);
        byte[] bytes = fs.contents(wal);
        // The header record is 7 + 12 bytes; the first batch's record starts right after it.
        int firstBatch = 19;
        bytes[firstBatch + 7 + 10] ^= 0x40;
        fs.setContents(wal, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(fs, DIR, OPTIONS));
        assertEquals(wal, e.file());
        assertEquals(firstBatch, e.offset());
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void flushedDataSurvivesAndItsWalIsDeleted() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            store.put(b("k"), b("v"));
            store.flush();
            assertEquals(1, store.stats().flushes());
            assertEquals(1, walCount(fs.list(DIR)));
        }
        fs.dropUnsyncedData();
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            assertArrayEquals(b("v"), store.get(b("k")));
        }
    }

    private static long walCount(List<String> names) {
        return names.stream().map(FileNames::parse)
                .filter(p -> p != null && p.kind() == FileNames.Kind.WAL).count();
    }

    private static Path onlyWal(MemoryFileSystem fs) throws IOException {
        List<String> wals = fs.list(DIR).stream().filter(n -> n.endsWith(".log")).toList();
        assertEquals(1, wals.size(), wals.toString());
        return DIR.resolve(wals.get(0));
    }
}
