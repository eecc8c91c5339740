package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Store#deleteRange}: gets, iterators both ways, prefix iterators and snapshots honour a range
 * tombstone wherever it lives (memtable, MANIFEST) and wherever the data under it lives (memtable,
 * level 0, deeper levels); it survives reopen; compaction drops what it covers, tables it covers
 * whole go without being read, and the tombstone itself goes once nothing is left under it.
 */
class RangeDeleteTest {
    private static final Path DIR = Path.of("/store");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String key(int i) {
        return String.format("k%04d", i);
    }

    private static StoreOptions manual() {
        return StoreOptions.builder().autoCompaction(false).build();
    }

    private static void putAll(Store s, int from, int to, String value) throws IOException {
        for (int i = from; i < to; i++) {
            s.put(b(key(i)), b(value + i));
        }
    }

    private static List<String> keys(StoreIterator it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                out.add(new String(it.next().key(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static List<String> expected(int from, int to, int delFrom, int delTo, boolean reverse) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            if (i < delFrom || i >= delTo) {
                out.add(key(i));
            }
        }
        if (reverse) {
            java.util.Collections.reverse(out);
        }
        return out;
    }

    private static void checkDeleted(Store s, int n, int delFrom, int delTo) throws IOException {
        for (int i = 0; i < n; i++) {
            byte[] v = s.get(b(key(i)));
            if (i >= delFrom && i < delTo) {
                assertNull(v, key(i) + " is under the tombstone");
            } else {
                assertArrayEquals(b("v" + i), v, key(i));
            }
        }
        assertEquals(expected(0, n, delFrom, delTo, false), keys(s.iterator(null, null)));
        assertEquals(expected(0, n, delFrom, delTo, true), keys(s.reverseIterator(null, null)));
        assertEquals(expected(5, 50, delFrom, delTo, false), keys(s.iterator(b(key(5)), b(key(50)))));
        assertEquals(expected(5, 50, delFrom, delTo, true), keys(s.reverseIterator(b(key(5)), b(key(50)))));
        List<String> prefix = new ArrayList<>();
        for (String k : expected(0, n, delFrom, delTo, false)) {
            if (k.startsWith("k001")) {
                prefix.add(k);
            }
        }
        assertEquals(prefix, keys(s.prefixIterator(b("k001"))));
    }

    @Test
    void memtableDataUnderMemtableTombstone() throws IOException {
        try (Store s = Store.open(new MemoryFileSystem(), DIR, manual())) {
            putAll(s, 0, 100, "v");
            s.deleteRange(b(key(10)), b(key(30)));
            checkDeleted(s, 100, 10, 30);
            assertEquals(1, s.stats().rangeTombstones());
        }
    }

    @Test
    void tableDataUnderMemtableTombstoneThenFlushedThenReopened() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        try (Store s = Store.open(fs, DIR, manual())) {
            putAll(s, 0, 100, "v");
            s.flush();
            s.deleteRange(b(key(10)), b(key(30)));
            checkDeleted(s, 100, 10, 30);
            s.flush();
            checkDeleted(s, 100, 10, 30);
        }
        try (Store s = Store.open(fs, DIR, manual())) {
            checkDeleted(s, 100, 10, 30);
        }
    }

    @Test
    void walReplayKeepsTheTombstone() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        try (Store s = Store.open(fs, DIR, manual())) {
            putAll(s, 0, 100, "v");
            s.flush();
            s.deleteRange(b(key(10)), b(key(30)), WriteOptions.SYNC);
        }
        try (Store s = Store.open(fs, DIR, manual())) {
            checkDeleted(s, 100, 10, 30);
        }
        try (Store s = Store.openReadOnly(fs, DIR, manual())) {
            checkDeleted(s, 100, 10, 30);
        }
    }

    @Test
    void newerWritesShowThroughAndSnapshotsSeeTheOld() throws IOException {
        try (Store s = Store.open(new MemoryFileSystem(), DIR, manual())) {
            putAll(s, 0, 100, "v");
            s.flush();
            Snapshot before = s.snapshot();
            s.deleteRange(b(key(10)), b(key(30)));
            Snapshot after = s.snapshot();
            s.put(b(key(15)), b("v15"));
            s.flush();
            assertArrayEquals(b("v15"), s.get(b(key(15))));
            assertNull(s.get(b(key(16))));
            assertArrayEquals(b("v16"), s.get(b(key(16)), ReadOptions.at(before)));
            assertNull(s.get(b(key(15)), ReadOptions.at(after)));
            assertEquals(expected(0, 100, 100, 100, false), keys(s.iterator(null, null, ReadOptions.at(before))));
            assertEquals(expected(0, 100, 10, 30, true), keys(s.reverseIterator(null, null, ReadOptions.at(after))));
            s.compact();
            assertArrayEquals(b("v16"), s.get(b(key(16)), ReadOptions.at(before)));
            assertEquals(expected(0, 100, 100, 100, false), keys(s.iterator(null, null, ReadOptions.at(before))));
            assertNull(s.get(b(key(15)), ReadOptions.at(after)));
            assertArrayEquals(b("v15"), s.get(b(key(15))));
            before.close();
            after.close();
        }
    }

    @Test
    void compactionDropsCoveredDataAndThenTheTombstone() throws IOException {
        try (Store s = Store.open(new MemoryFileSystem(), DIR, manual())) {
            putAll(s, 0, 1000, "v");
            s.flush();
            s.compact();
            s.deleteRange(b(key(100)), b(key(900)));
            s.compact();
            checkDeleted(s, 1000, 100, 900);
            assertEquals(0, s.stats().rangeTombstones(), "nothing is left under the tombstone: it went");
            long entries = 0;
            for (StoreStats.LevelStats l : s.stats().levels()) {
                entries += l.entries();
            }
            assertEquals(200, entries);
        }
    }

    @Test
    void tablesCoveredWholeAreDroppedWithoutReading() throws IOException {
        StoreOptions options = StoreOptions.builder().autoCompaction(false).memtableBytes(8 * 1024).build();
        try (Store s = Store.open(new MemoryFileSystem(), DIR, options)) {
            for (int t = 0; t < 5; t++) {
                putAll(s, t * 100, t * 100 + 100, "v");
                s.flush();
            }
            s.deleteRange(b(key(100)), b(key(400)));
            s.flush();
            s.awaitCompactions();
            StoreStats st = s.stats();
            assertEquals(3, st.rangeDeletedTables(), "tables 100..399 covered whole");
            assertEquals(2, st.totalFiles());
            checkDeleted(s, 500, 100, 400);
            // Nothing is left under the tombstone: it is gone too.
            assertEquals(0, st.rangeTombstones());
        }
    }

    @Test
    void aBottomTablePartlyUnderATombstoneIsCompactedAndTheTombstoneGoes() throws IOException {
        try (Store s = Store.open(new MemoryFileSystem(), DIR, StoreOptions.defaults())) {
            putAll(s, 0, 1000, "v");
            s.compact();
            s.deleteRange(b(key(100)), b(key(200)));
            s.flush();
            s.awaitCompactions();
            StoreStats st = s.stats();
            assertEquals(0, st.rangeTombstones(), "the table holding [100, 200) was rewritten, the tombstone went");
            long entries = 0;
            for (StoreStats.LevelStats l : st.levels()) {
                entries += l.entries();
            }
            assertEquals(900, entries);
            checkDeleted(s, 1000, 100, 200);
        }
    }

    @Test
    void snapshotKeepsCoveredTablesAndTheTombstone() throws IOException {
        StoreOptions options = StoreOptions.builder().autoCompaction(false).build();
        try (Store s = Store.open(new MemoryFileSystem(), DIR, options)) {
            putAll(s, 0, 100, "v");
            s.flush();
            Snapshot old = s.snapshot();
            s.deleteRange(b(key(0)), b(key(100)));
            s.flush();
            s.compact();
            assertEquals(0, s.stats().rangeDeletedTables());
            assertEquals(1, s.stats().rangeTombstones());
            assertArrayEquals(b("v5"), s.get(b(key(5)), ReadOptions.at(old)));
            assertNull(s.get(b(key(5))));
            old.close();
            s.compact();
            assertEquals(0, s.stats().rangeTombstones());
            assertEquals(0, s.stats().totalFiles());
        }
    }

    @Test
    void scansStartingOrEndingInsideTheDeletedRange() throws IOException {
        try (Store s = Store.open(new MemoryFileSystem(), DIR, manual())) {
            putAll(s, 0, 100, "v");
            s.flush();
            s.compact();
            s.put(b(key(20)), b("v20"));
            s.deleteRange(b(key(10)), b(key(30)));
            s.put(b(key(25)), b("v25"));
            for (boolean flushed : new boolean[] {false, true}) {
                if (flushed) {
                    s.flush();
                }
                assertEquals(List.of(key(25)), keys(s.iterator(b(key(10)), b(key(30)))));
                assertEquals(List.of(key(25)), keys(s.reverseIterator(b(key(10)), b(key(30)))));
                assertEquals(List.of(), keys(s.iterator(b(key(12)), b(key(20)))));
                assertEquals(List.of(), keys(s.reverseIterator(b(key(12)), b(key(20)))));
                assertEquals(List.of(key(25), key(30), key(31)), keys(s.iterator(b(key(12)), b(key(32)))));
                assertEquals(List.of(key(31), key(30), key(25)), keys(s.reverseIterator(b(key(12)), b(key(32)))));
                assertEquals(List.of(key(8), key(9), key(25)), keys(s.iterator(b(key(8)), b(key(28)))));
                assertEquals(List.of(key(25), key(9), key(8)), keys(s.reverseIterator(b(key(8)), b(key(28)))));
            }
        }
    }

    @Test
    void batchesAndArguments() throws IOException {
        try (Store s = Store.open(new MemoryFileSystem(), DIR, manual())) {
            putAll(s, 0, 100, "v");
            // One batch: the range deletion sees the put before it, not the put after it.
            s.write(new WriteBatch().put(b(key(20)), b("x")).deleteRange(b(key(10)), b(key(30)))
                    .put(b(key(25)), b("v25")), WriteOptions.DEFAULT);
            assertNull(s.get(b(key(20))));
            assertArrayEquals(b("v25"), s.get(b(key(25))));
            assertThrows(IllegalArgumentException.class, () -> s.deleteRange(b("b"), b("a")));
            assertThrows(IllegalArgumentException.class, () -> s.deleteRange(null, b("a")));
            assertThrows(IllegalArgumentException.class, () -> s.deleteRange(b("a"), new byte[0]));
            s.deleteRange(b(key(50)), b(key(50)));
            assertArrayEquals(b("v50"), s.get(b(key(50))));
            assertEquals(1, s.stats().rangeTombstones());
        }
    }
}
