package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TableWriter} and {@link Store#ingest}: tables built outside a store, linked in whole. */
class IngestTest {
    @TempDir
    Path tmp;

    private static byte[] key(String range, int i) {
        return String.format("%s%07d", range, i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(String range, int i) {
        return ("ingested " + range + i).getBytes(StandardCharsets.UTF_8);
    }

    /** Writes keys {@code range}0..n-1 (every 7th a deletion when {@code deletes}) into a table file. */
    private Path table(String name, String range, int n) throws IOException {
        Path file = tmp.resolve("tables").resolve(name + ".sst");
        try (TableWriter w = TableWriter.create(file)) {
            for (int i = 0; i < n; i++) {
                w.put(key(range, i), value(range, i));
            }
            TableWriterResult r = w.finish();
            assertEquals(n, r.entries());
            assertArrayEquals(key(range, 0), r.smallestKey());
            assertTrue(Files.exists(r.filter()), "a filter sidecar beside the table");
        }
        return file;
    }

    private static String problems(Path dir) {
        try {
            return StoreVerifier.verify(dir).problems().toString();
        } catch (IOException e) {
            return e.toString();
        }
    }

    private Set<String> storeTables(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Set<String> out = new TreeSet<>();
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst") || n.endsWith(".filter"))
                    .forEach(out::add);
            return out;
        }
    }

    @Test
    void ingestedTablesAreReadableDurableAndOlderThanLaterWrites() throws IOException {
        Path dir = tmp.resolve("store");
        List<Path> tables = List.of(table("b", "b", 5000), table("a", "a", 5000), table("c", "c", 3000));
        try (Store store = Store.open(dir)) {
            store.put("z".getBytes(StandardCharsets.UTF_8), "before".getBytes(StandardCharsets.UTF_8));
            IngestReport r = store.ingest(tables);
            assertEquals(3, r.files());
            assertEquals(13_000, r.entries());
            assertEquals(List.of(6, 6, 6), r.levels(), "no compaction runs: the last level");
            assertEquals(6, r.linked(), "tables and sidecars hard-linked");
            assertArrayEquals(value("a", 17), store.get(key("a", 17)));
            assertArrayEquals(value("c", 2999), store.get(key("c", 2999)));
            assertNull(store.get(key("c", 3000)));
            store.put(key("b", 10), "newer".getBytes(StandardCharsets.UTF_8));
            store.delete(key("a", 5));
            try (StoreIterator it = store.iterator(null, null)) {
                int n = 0;
                while (it.hasNext()) {
                    it.next();
                    n++;
                }
                assertEquals(13_000 - 1 + 1, n, "every ingested key, less the deleted one, plus z");
            }
        }
        for (Path t : tables) {
            Files.delete(t);
            Files.delete(TableWriter.filterOf(t));
        }
        try (Store store = Store.open(dir)) {
            assertArrayEquals(value("b", 4999), store.get(key("b", 4999)), "the store's links outlive the sources");
            assertArrayEquals("newer".getBytes(StandardCharsets.UTF_8), store.get(key("b", 10)));
            assertNull(store.get(key("a", 5)));
            store.compact();
            assertArrayEquals("newer".getBytes(StandardCharsets.UTF_8), store.get(key("b", 10)));
            assertNull(store.get(key("a", 5)));
            assertArrayEquals(value("a", 6), store.get(key("a", 6)));
        }
        assertTrue(StoreVerifier.verify(dir).clean(), () -> "the store verifies after ingest and compaction: " + problems(dir));
    }

    /** Writes keys {@code range}{@code from}..{@code to}-1 with values tagged {@code tag}. */
    private Path table(String name, String range, int from, int to, String tag) throws IOException {
        Path file = tmp.resolve("tables").resolve(name + ".sst");
        try (TableWriter w = TableWriter.create(file)) {
            for (int i = from; i < to; i++) {
                w.put(key(range, i), (tag + i).getBytes(StandardCharsets.UTF_8));
            }
            w.finish();
        }
        return file;
    }

    private static String get(Store store, byte[] key) throws IOException {
        byte[] v = store.get(key);
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    /**
     * Tables overlapping the store's tables, its memtable, each other or ingested under an open
     * snapshot are rewritten as the newest versions: they shadow what the store held, a later table
     * of the call shadows an earlier one, the snapshot does not see them, and all of it survives a
     * reopen and a compaction.
     */
    @Test
    void overlappingTablesBecomeTheNewestVersions() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store store = Store.open(dir)) {
            for (int i = 0; i < 1000; i++) {
                store.put(key("m", i), ("put" + i).getBytes(StandardCharsets.UTF_8));
            }
            store.flush();
            store.put(key("m", 2000), "memtable".getBytes(StandardCharsets.UTF_8));
            store.put(key("m", 500), "memtable".getBytes(StandardCharsets.UTF_8));
            IngestReport r;
            try (Snapshot before = store.snapshot()) {
                Path first = table("first", "m", 400, 2100, "first");
                Path second = table("second", "m", 450, 460, "second");
                r = store.ingest(List.of(first, second));
                assertEquals(List.of(0, 0), r.levels(), "overlapping tables are rewritten into level 0");
                assertTrue(r.flushed(), "the memtable held keys in the range");
                assertEquals("put450", new String(store.get(key("m", 450), ReadOptions.at(before)),
                        StandardCharsets.UTF_8), "a snapshot taken before the ingest does not see it");
                assertNull(store.get(key("m", 1500), ReadOptions.at(before)));
            }
            assertEquals("put399", get(store, key("m", 399)));
            assertEquals("first400", get(store, key("m", 400)));
            assertEquals("second455", get(store, key("m", 455)), "the later table of the call wins");
            assertEquals("first500", get(store, key("m", 500)), "the ingest shadows the memtable's write");
            assertEquals("first2000", get(store, key("m", 2000)));
            store.put(key("m", 401), "after".getBytes(StandardCharsets.UTF_8));
            assertEquals("after", get(store, key("m", 401)), "writes after the ingest are newer");

            // A compaction the ingest scheduled may still be writing: the listings compare files at rest.
            store.awaitCompactions();
            Set<String> before = storeTables(dir);
            Path own = dir.resolve(before.stream().filter(n -> n.endsWith(".sst")).findFirst().orElseThrow());
            Path copy = Files.copy(own, tmp.resolve("foreign.sst"));
            Files.copy(own.resolveSibling(own.getFileName().toString().replace(".sst", ".filter")),
                    TableWriter.filterOf(copy));
            IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                    () -> store.ingest(List.of(copy)));
            assertTrue(foreign.getMessage().contains("TableWriter"), foreign.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(tmp.resolve("missing.sst"))));
            store.awaitCompactions();
            assertEquals(before, storeTables(dir), "a refused ingest leaves no file in the store");
        }
        try (Store store = Store.open(dir)) {
            store.compact();
            assertEquals("put399", get(store, key("m", 399)));
            assertEquals("second455", get(store, key("m", 455)));
            assertEquals("first500", get(store, key("m", 500)));
            assertEquals("after", get(store, key("m", 401)));
            assertEquals("first2099", get(store, key("m", 2099)));
        }
        assertTrue(StoreVerifier.verify(dir).clean(), () -> problems(dir));
    }

    @Test
    void writerRefusesKeysOutOfOrderAndLeavesNothingWhenClosedUnfinished() throws IOException {
        Path file = tmp.resolve("t.sst");
        try (TableWriter w = TableWriter.create(file)) {
            w.put(key("a", 2), new byte[1]);
            assertThrows(IllegalArgumentException.class, () -> w.put(key("a", 2), new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> w.put(key("a", 1), new byte[1]));
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "an unfinished writer deletes what it wrote");
        }
        try (TableWriter w = TableWriter.create(file)) {
            assertThrows(IllegalStateException.class, w::finish, "an empty table cannot be finished");
        }
    }

    /**
     * {@code finishAsync} writes the same files as {@code finish} (byte for byte) while the caller
     * goes on, refuses an empty table at once, takes no more keys, and a failure reaches
     * {@code TableWriter.await} as {@code finish} would have thrown it.
     */
    @Test
    void finishAsyncWritesWhatFinishWritesAndReportsItsFailure() throws Exception {
        Path sync = tmp.resolve("sync").resolve("t.sst");
        Path async = tmp.resolve("async").resolve("t.sst");
        try (TableWriter a = TableWriter.create(sync); TableWriter b = TableWriter.create(async)) {
            for (int i = 0; i < 50_000; i++) {
                a.put(key("k", i), value("k", i));
                b.put(key("k", i), value("k", i));
            }
            TableWriterResult expected = a.finish();
            java.util.concurrent.CompletableFuture<TableWriterResult> f = b.finishAsync();
            assertThrows(IllegalStateException.class, () -> b.put(key("k", 60_000), new byte[1]),
                    "no more keys once finishing");
            TableWriterResult r = TableWriter.await(f);
            assertEquals(expected.entries(), r.entries());
            assertEquals(expected.tableBytes(), r.tableBytes());
            assertArrayEquals(Files.readAllBytes(sync), Files.readAllBytes(async), "the same table");
            assertArrayEquals(Files.readAllBytes(TableWriter.filterOf(sync)), Files.readAllBytes(TableWriter.filterOf(async)),
                    "the same filter");
        }
        Path store = tmp.resolve("store");
        try (Store s = Store.open(store)) {
            s.ingest(List.of(async));
            assertArrayEquals(value("k", 49_999), s.get(key("k", 49_999)));
        }
        try (TableWriter w = TableWriter.create(tmp.resolve("empty.sst"))) {
            assertThrows(IllegalStateException.class, w::finishAsync, "an empty table cannot be finished");
        }
        // A failure on the finishing thread: the table's directory is gone before the rename.
        Path doomed = tmp.resolve("doomed").resolve("t.sst");
        TableWriter w = TableWriter.create(doomed);
        w.put(key("d", 0), value("d", 0));
        deleteTree(doomed.getParent());
        IOException e = assertThrows(IOException.class, () -> TableWriter.await(w.finishAsync()));
        assertTrue(e.getMessage() != null, "the failure says what");
        w.close();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Whether key {@code i} was the last of an ingested range, written by the writer before or after the ingest. */
    private static boolean isAmbiguous(List<int[]> overwritten, int i) {
        for (int[] range : overwritten) {
            if (range[1] - 1 == i) {
                return true;
            }
        }
        return false;
    }

    /**
     * Ingests while a writer fills a lower key range and flushes and compactions run beside it:
     * each ingested range lies above every key written before it (a compaction's output spanning
     * a gap would make an ingest into that gap overlap, and be refused).
     */
    @Test
    void ingestBesideWritersAndCompactions() throws Exception {
        Path dir = tmp.resolve("store");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger written = new AtomicInteger();
        List<IngestReport> reports = new ArrayList<>();
        List<int[]> overwritten = new ArrayList<>();
        try (Store store = Store.open(dir, StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10)
                .build())) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        store.put(key("w", i), value("w", i));
                        written.set(i + 1);
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            writer.start();
            for (int t = 0; t < 8; t++) {
                Thread.sleep(30);
                reports.add(store.ingest(List.of(table("i" + t, "y" + t + "-", 2000))));
                // And one over keys the writer wrote already: rewritten, newest.
                int upTo = written.get();
                reports.add(store.ingest(List.of(table("o" + t, "w", Math.max(0, upTo - 50), upTo + 1, "o"))));
                overwritten.add(new int[] {Math.max(0, upTo - 50), upTo + 1});
            }
            stop.set(true);
            writer.join();
            assertNull(failure.get());
            store.awaitCompactions();
            for (int t = 0; t < 8; t++) {
                for (int i = 0; i < 2000; i += 13) {
                    assertArrayEquals(value("y" + t + "-", i), store.get(key("y" + t + "-", i)), "table " + t);
                }
            }
            // An "o" table ingested over [from, upTo] shadows the keys the writer had written by
            // then, those below upTo for certain (key upTo may have come before or after it).
            boolean[] ingested = new boolean[written.get()];
            for (int[] range : overwritten) {
                for (int i = range[0]; i < range[1] - 1 && i < written.get(); i++) {
                    ingested[i] = true;
                }
            }
            for (int i = 0; i < written.get(); i++) {
                byte[] expected = ingested[i] ? ("o" + i).getBytes(StandardCharsets.UTF_8) : value("w", i);
                if (!ingested[i] && isAmbiguous(overwritten, i)) {
                    continue;
                }
                assertArrayEquals(expected, store.get(key("w", i)), "key w" + i);
            }
        }
        System.out.println("IngestTest levels: " + reports.stream().map(r -> r.levels().get(0)).toList());
        assertTrue(StoreVerifier.verify(dir).clean(), () -> problems(dir));
    }
}
