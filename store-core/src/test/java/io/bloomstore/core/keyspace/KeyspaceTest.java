package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.KeyspaceOptions;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keyspaces: isolation, atomic batches across them, snapshots, flush, compaction, reopen, drop and options. */
class KeyspaceTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private static StoreOptions small() {
        return StoreOptions.builder().memtableBytes(8 * 1024).blockSize(256).l0Triggers(2, 3, 4)
                .baseLevelBytes(16 * 1024).targetFileBytes(8 * 1024).build();
    }

    @Test
    void keyspacesAreSeparateAndSurviveReopen() throws Exception {
        try (Store store = Store.open(dir, small())) {
            Keyspace users = store.keyspace("users");
            Keyspace orders = store.keyspace("orders");
            assertEquals("users", users.name());
            assertEquals(List.of("default", "users", "orders"), store.keyspaces());
            store.put(b("k"), b("default"));
            store.put(users, b("k"), b("user"));
            store.put(orders, b("k"), b("order"));
            assertEquals("default", s(store.get(b("k"))));
            assertEquals("user", s(store.get(users, b("k"))));
            assertEquals("order", s(store.get(orders, b("k"))));
            store.delete(users, b("k"));
            assertNull(store.get(users, b("k")));
            assertEquals("order", s(store.get(orders, b("k"))));
            assertEquals("default", s(store.get(b("k"))));
        }
        try (Store store = Store.open(dir, small())) {
            assertEquals(List.of("default", "users", "orders"), store.keyspaces());
            Keyspace users = store.keyspace("users");
            Keyspace orders = store.keyspace("orders");
            assertNull(store.get(users, b("k")));
            assertEquals("order", s(store.get(orders, b("k"))));
            assertEquals("default", s(store.get(b("k"))));
        }
    }

    @Test
    void manyWritesFlushCompactAndIterateEachKeyspace() throws Exception {
        int n = 3000;
        try (Store store = Store.open(dir, small())) {
            Keyspace a = store.keyspace("a");
            Keyspace c = store.keyspace("c");
            for (int i = 0; i < n; i++) {
                WriteBatch batch = new WriteBatch().put(a, b(String.format("k%05d", i)), b("a" + i))
                        .put(c, b(String.format("k%05d", i)), b("c" + i));
                if (i % 3 == 0) {
                    batch.put(b(String.format("k%05d", i)), b("d" + i));
                }
                store.write(batch, WriteOptions.DEFAULT);
            }
            store.deleteRange(c, b("k01000"), b("k02000"));
            store.flush();
            store.compact();
            checkAll(store, store.keyspace("a"), store.keyspace("c"), n);
        }
        try (Store store = Store.open(dir, small())) {
            checkAll(store, store.keyspace("a"), store.keyspace("c"), n);
            assertTrue(store.stats(store.keyspace("a")).toString().length() > 0);
        }
    }

    private static void checkAll(Store store, Keyspace a, Keyspace c, int n) throws Exception {
        for (int i = 0; i < n; i += 7) {
            String k = String.format("k%05d", i);
            assertEquals("a" + i, s(store.get(a, b(k))));
            assertEquals(i >= 1000 && i < 2000 ? null : "c" + i, s(store.get(c, b(k))));
            assertEquals(i % 3 == 0 ? "d" + i : null, s(store.get(b(k))));
        }
        assertEquals(n, count(store.iterator(a, null, null)));
        assertEquals(n - 1000, count(store.iterator(c, null, null)));
        assertEquals((n + 2) / 3, count(store.iterator(null, null)));
        List<String> reversed = new ArrayList<>();
        try (StoreIterator it = store.reverseIterator(a, b("k00010"), b("k00013"))) {
            while (it.hasNext()) {
                reversed.add(s(it.next().key()));
            }
        }
        assertEquals(List.of("k00012", "k00011", "k00010"), reversed);
        assertEquals(10, count(store.prefixIterator(a, b("k0001"))));
    }

    private static int count(StoreIterator it) throws Exception {
        int n = 0;
        try (it) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    @Test
    void snapshotsSpanKeyspaces() throws Exception {
        try (Store store = Store.open(dir, small())) {
            Keyspace a = store.keyspace("a");
            store.write(new WriteBatch().put(a, b("x"), b("1")).put(b("x"), b("1")), WriteOptions.DEFAULT);
            try (Snapshot snap = store.snapshot()) {
                store.write(new WriteBatch().put(a, b("x"), b("2")).put(b("x"), b("2")), WriteOptions.DEFAULT);
                store.flush();
                ReadOptions at = ReadOptions.at(snap);
                assertEquals("1", s(store.get(a, b("x"), at)));
                assertEquals("1", s(store.get(b("x"), at)));
                assertEquals("2", s(store.get(a, b("x"))));
            }
        }
    }

    @Test
    void dropDeletesTheKeyspacesFilesAndANewOneStartsEmpty() throws Exception {
        try (Store store = Store.open(dir, small())) {
            Keyspace t = store.keyspace("tenant");
            for (int i = 0; i < 2000; i++) {
                store.put(t, b(String.format("k%05d", i)), new byte[100]);
            }
            store.put(b("keep"), b("me"));
            store.flush();
            long tablesBefore = tables(dir);
            assertTrue(tablesBefore > 1, "the keyspace has tables");
            store.dropKeyspace("tenant");
            assertThrows(IllegalStateException.class, () -> store.get(t, b("k00001")));
            assertEquals(List.of("default"), store.keyspaces());
            store.put(b("after"), b("drop"));
            store.flush();
            assertTrue(tables(dir) < tablesBefore, "the dropped keyspace's tables are deleted");
        }
        try (Store store = Store.open(dir, small())) {
            assertEquals(List.of("default"), store.keyspaces());
            Keyspace again = store.keyspace("tenant");
            assertNull(store.get(again, b("k00001")), "a keyspace made after a drop starts empty");
            assertEquals(0, count(store.iterator(again, null, null)));
            assertEquals("me", s(store.get(b("keep"))));
        }
        // The dropped keyspace's writes are still in no WAL replay: a second reopen sees the same.
        try (Store store = Store.open(dir, small())) {
            assertEquals(0, count(store.iterator(store.keyspace("tenant"), null, null)));
        }
    }

    private static long tables(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".sst")).count();
        }
    }

    @Test
    void dropBeforeAFlushLeavesNothingForTheReplay() throws Exception {
        try (Store store = Store.open(dir, small())) {
            Keyspace t = store.keyspace("t");
            store.put(t, b("a"), b("1"));
            store.dropKeyspace("t");
            Keyspace t2 = store.keyspace("t");
            assertFalse(t2.id() == t.id(), "a new keyspace never takes a dropped one's number");
            store.put(t2, b("b"), b("2"));
        }
        try (Store store = Store.open(dir, small())) {
            Keyspace t = store.keyspace("t");
            assertNull(store.get(t, b("a")));
            assertEquals("2", s(store.get(t, b("b"))));
        }
    }

    @Test
    void keyspaceOptionsApplyToTheirKeyspaceOnly() throws Exception {
        KeyspaceOptions counters = KeyspaceOptions.builder().mergeOperator(MergeOperators.int64Add()).build();
        StoreOptions options = StoreOptions.builder().keyspaceOptions("counters", counters).build();
        try (Store store = Store.open(dir, options)) {
            Keyspace c = store.keyspace("counters", counters);
            store.merge(c, b("n"), MergeOperators.int64(2));
            store.merge(c, b("n"), MergeOperators.int64(3));
            assertEquals(5, MergeOperators.int64(store.get(c, b("n"))));
            assertThrows(IllegalStateException.class, () -> store.merge(b("n"), MergeOperators.int64(1)),
                    "the default keyspace has no merge operator");
            assertThrows(IllegalStateException.class, () -> store.keyspace("counters", KeyspaceOptions.DEFAULT),
                    "options are fixed while the store is open");
            store.flush();
        }
        try (Store store = Store.open(dir, options)) {
            Keyspace c = store.keyspace("counters");
            store.merge(c, b("n"), MergeOperators.int64(1));
            assertEquals(6, MergeOperators.int64(store.get(c, b("n"))));
        }
    }

    @Test
    void misuseIsRefusedClearly() throws Exception {
        try (Store store = Store.open(dir, small()); Store other = Store.open(dir.resolve("other"), small())) {
            Keyspace foreign = other.keyspace("x");
            assertThrows(IllegalArgumentException.class, () -> store.put(foreign, b("k"), b("v")));
            assertThrows(IllegalArgumentException.class, () -> store.get(foreign, b("k")));
            assertThrows(IllegalArgumentException.class, () -> store.keyspace(""));
            assertThrows(IllegalArgumentException.class, () -> store.keyspace("x".repeat(256)));
            assertThrows(IllegalArgumentException.class, () -> store.dropKeyspace("default"));
            assertThrows(IllegalArgumentException.class, () -> store.dropKeyspace("missing"));
            assertThrows(IllegalArgumentException.class, () -> store.get((Keyspace) null, b("k")));
            assertEquals(0, store.keyspace("default").id());
        }
    }

    @Test
    void checkpointCarriesKeyspaces() throws Exception {
        Path copy = dir.resolve("copy");
        try (Store store = Store.open(dir.resolve("s"), small())) {
            Keyspace a = store.keyspace("a");
            for (int i = 0; i < 500; i++) {
                store.put(a, b("k" + i), b("v" + i));
            }
            store.flush();
            store.put(a, b("late"), b("in the WAL"));
            store.checkpoint(copy);
        }
        try (Store store = Store.open(copy, small())) {
            Keyspace a = store.keyspace("a");
            assertEquals("v7", s(store.get(a, b("k7"))));
            assertEquals("in the WAL", s(store.get(a, b("late"))));
            assertEquals(501, count(store.iterator(a, null, null)));
        }
    }

    @Test
    void readOnlyOpenReadsKeyspacesAndCreatesNone() throws Exception {
        try (Store store = Store.open(dir, small())) {
            store.put(store.keyspace("a"), b("k"), b("v"));
        }
        try (Store ro = Store.openReadOnly(dir, small())) {
            assertEquals("v", s(ro.get(ro.keyspace("a"), b("k"))));
            assertThrows(IllegalStateException.class, () -> ro.keyspace("new"));
        }
    }

    @Test
    void ingestLinksTablesIntoAKeyspace() throws Exception {
        Path table = dir.resolve("t.sst");
        try (io.bloomstore.core.TableWriter w = io.bloomstore.core.TableWriter.create(table)) {
            for (int i = 0; i < 100; i++) {
                w.put(b(String.format("i%03d", i)), b("v" + i));
            }
            w.finish();
        }
        try (Store store = Store.open(dir.resolve("s"), small())) {
            Keyspace k = store.keyspace("bulk");
            store.put(b("i001"), b("default"));
            assertEquals(100, store.ingest(k, List.of(table)).entries());
            assertEquals("v1", s(store.get(k, b("i001"))));
            assertEquals("default", s(store.get(b("i001"))), "the default keyspace is untouched");
            assertNull(store.get(b("i002")));
        }
        try (Store store = Store.open(dir.resolve("s"), small())) {
            assertEquals(100, count(store.iterator(store.keyspace("bulk"), null, null)));
        }
    }

    @Test
    void inMemoryFileSystemWorksToo() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path d = Path.of("/ks/store");
        try (Store store = Store.open(fs, d, small())) {
            store.put(store.keyspace("a"), b("k"), b("v"));
        }
        try (Store store = Store.open(fs, d, small())) {
            assertArrayEquals(b("v"), store.get(store.keyspace("a"), b("k")));
        }
    }
}
