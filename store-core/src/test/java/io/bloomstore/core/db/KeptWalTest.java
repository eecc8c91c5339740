package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writable open keeps a few small WAL segments as they are (their writes become the live
 * memtable) instead of writing them to a level-0 table: a series of one-shot writes writes no table
 * until {@link StoreOpener#MAX_KEPT_WAL_SEGMENTS} segments await replay, then one. A segment with a
 * torn final record is never kept (a later segment after it would read as lost writes), nor one
 * whose records end below the MANIFEST's last sequence number (the same gap, see
 * {@link WalReplay.Result#reaches}), and nothing is lost either way, also when the process ends
 * without closing the store. Segments that replay to nothing are deleted, not kept. Deterministic
 * keys.
 */
class KeptWalTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().autoCompaction(false).build();

    @TempDir
    Path dir;

    @Test
    void oneShotWritesKeepTheirSegmentsUntilTheCapThenFlushOnce() throws IOException {
        int opens = StoreOpener.MAX_KEPT_WAL_SEGMENTS;
        for (int i = 0; i < opens; i++) {
            try (Store store = Store.open(dir, OPTIONS)) {
                store.put(key(i), value(i));
            }
            assertEquals(0, count(".sst"), "open " + i + " wrote no table");
            assertEquals(i + 1, count(".log"), "open " + i + " kept the segments it replayed");
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            // Written by the flush thread after the open; flush() waits for it (and for nothing else: the memtable is empty).
            store.flush();
            assertEquals(1, count(".sst"), "at the cap the replayed writes became one level-0 table");
            assertEquals(1, count(".log"), "and their segments were deleted: only the new one is left");
            for (int i = 0; i < opens; i++) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
        }
    }

    @Test
    void segmentsThatReplayToNothingAreDeletedNotKept() throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            store.put(key(0), value(0));
            store.flush();
        }
        // Each open replays the previous open's segment, which holds no write the tables lack.
        for (int i = 0; i < 2 * StoreOpener.MAX_KEPT_WAL_SEGMENTS; i++) {
            Store.open(dir, OPTIONS).close();
            assertEquals(1, count(".log"), "open " + i + " left only its own segment");
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertArrayEquals(value(0), store.get(key(0)));
            store.put(key(1), value(1));
        }
        // A segment with a write is still kept beside the next open's.
        try (Store store = Store.open(dir, OPTIONS)) {
            assertEquals(2, count(".log"), "the segment holding key 1 is kept");
            assertArrayEquals(value(1), store.get(key(1)));
        }
    }

    @Test
    void writesAfterAKeepingOpenSurviveAnUncleanEnd() throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            store.put(key(0), value(0));
        }
        Store store = Store.open(dir, OPTIONS);
        store.put(key(1), value(1));
        store.delete(key(0));
        // No close: the process ends here. A read-only open replays both segments.
        try (Store reader = reopenReadOnlyBeside(store)) {
            assertNull(reader.get(key(0)));
            assertArrayEquals(value(1), reader.get(key(1)));
        } finally {
            store.close();
        }
    }

    /**
     * Segments a process left without closing the store (it died) are written to a table (by the
     * flush thread, after the open), never kept: their bytes may sit in the page cache after a failed writeback, which Linux reports only
     * to the descriptors open at the time, so a sync by the next process proves nothing. Only a
     * clean close's mark (two seal records, the second after a successful final sync) lets the next
     * open keep them.
     */
    @Test
    void segmentsOfAProcessThatDiedAreFlushedNotKept() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        Path store = Path.of("/died/store");
        Store first = Store.open(mem, store, OPTIONS);
        first.put(key(0), value(0));
        // No close: the process is gone; its WAL is as it wrote it, without the clean-close mark.
        mem.crashProcess();
        try (Store reopened = Store.open(mem, store, OPTIONS)) {
            // By the flush thread, after the open; flush() waits for it (the memtable is empty).
            reopened.flush();
            assertEquals(1, mem.list(store).stream().filter(n -> n.endsWith(".sst")).count(),
                    "the dead process's writes went to a level-0 table: " + mem.list(store));
            assertArrayEquals(value(0), reopened.get(key(0)));
            reopened.put(key(1), value(1));
        }
        // Closed cleanly this time: the next open keeps the segment.
        try (Store reopened = Store.open(mem, store, OPTIONS)) {
            assertEquals(1, mem.list(store).stream().filter(n -> n.endsWith(".sst")).count(),
                    "a clean close's segment is kept, not flushed: " + mem.list(store));
            assertArrayEquals(value(1), reopened.get(key(1)));
        }
    }

    @Test
    void aSegmentWithATornTailIsFlushedNotKept() throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            store.put(key(0), value(0));
            store.put(key(1), new byte[5000]);
        }
        Path wal = files(".log").get(0);
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.setLength(f.length() - 100);
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertEquals(1, count(".sst"), "the torn segment's complete writes went to a table");
            assertEquals(List.of(), files(".log").stream().filter(wal::equals).toList(), "and it was deleted");
            store.put(key(2), value(2));
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertArrayEquals(value(0), store.get(key(0)));
            assertNull(store.get(key(1)), "the torn write was never acknowledged as synced");
            assertArrayEquals(value(2), store.get(key(2)));
        }
    }

    /**
     * A flush's MANIFEST edit records the last sequence number assigned, here that of writes in the
     * current segment that no sync reached. A machine crash cuts that segment back to its synced
     * write; the open must not keep it: the new segment's writes take sequence numbers past the
     * lost ones, and the next recovery (and the verifier) read the numbers between the two
     * segments as lost writes. Before the fix the second open failed: "sequence gap".
     */
    @Test
    void aSegmentEndingBelowTheManifestsLastSequenceIsNotKept() throws Exception {
        Path store = Path.of("/kept-wal/store");
        StoreOptions options = StoreOptions.builder().memtableBytes(32 << 10).bytesPerSync(0).autoCompaction(false)
                .build();
        FaultInjectionFileSystem disk = new FaultInjectionFileSystem(new MemoryFileSystem(), 11);
        CountDownLatch flushMayStart = new CountDownLatch(1);
        disk.beforeCreate(p -> {
            if (p.toString().endsWith(".sst")) {
                awaitUninterruptibly(flushMayStart);
            }
        });
        Store crashed = Store.open(disk, store, options);
        int i = 0;
        // Up to the first memtable switch: its flush waits to create its table.
        while (wals(disk, store).size() < 2) {
            crashed.put(key(i), bigValue(i));
            i++;
        }
        int synced = i++;
        crashed.put(key(synced), bigValue(synced), WriteOptions.SYNC);
        for (int end = i + 5; i < end; i++) {
            crashed.put(key(i), bigValue(i));
        }
        int written = i;
        flushMayStart.countDown();
        // The flush's edit (the last sequence number of every write so far) is logged before it
        // deletes the first segment.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (wals(disk, store).size() > 1) {
            assertTrue(System.nanoTime() < deadline, "the flush did not finish");
            Thread.sleep(1);
        }
        FaultInjectionFileSystem after = disk.crash();
        try {
            crashed.close();
        } catch (IOException | RuntimeException e) {
            // The crashed view refuses everything.
        }
        try (Store reopened = Store.open(after, store, options)) {
            reopened.put(key(written), bigValue(written), WriteOptions.SYNC);
        }
        VerifyReport report = StoreVerifier.verify(after, store);
        assertTrue(report.errors().isEmpty(), report.errors().toString());
        try (Store reopened = Store.open(after, store, options)) {
            for (int k = 0; k <= synced; k++) {
                assertArrayEquals(bigValue(k), reopened.get(key(k)), "synced key " + k);
            }
            for (int k = synced + 1; k < written; k++) {
                assertNull(reopened.get(key(k)), "unsynced key " + k + " was lost with the crash");
            }
            assertArrayEquals(bigValue(written), reopened.get(key(written)), "the write after the crash");
        }
    }

    private static List<String> wals(FileSystem fs, Path store) throws IOException {
        return fs.list(store).stream().filter(n -> n.endsWith(".log")).toList();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] bigValue(int i) {
        return ("value-" + i + "-" + "x".repeat(300)).getBytes(StandardCharsets.UTF_8);
    }

    /** The store as another process would find it now: copied, then opened read-only. */
    private Store reopenReadOnlyBeside(Store unclosed) throws IOException {
        Path copy = dir.resolveSibling(dir.getFileName() + "-copy");
        Files.createDirectories(copy);
        for (Path p : files("")) {
            Files.copy(p, copy.resolve(p.getFileName()));
        }
        Files.deleteIfExists(copy.resolve("LOCK"));
        return Store.openReadOnly(copy, OPTIONS);
    }

    private List<Path> files(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    private long count(String suffix) throws IOException {
        return files(suffix).size();
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
