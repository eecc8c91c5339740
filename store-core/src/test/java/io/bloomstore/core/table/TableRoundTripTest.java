package io.bloomstore.core.table;

import io.bloomstore.core.Compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.stats.StoreCounters;

class TableRoundTripTest {
    @TempDir
    Path dir;

    static Stream<Arguments> variants() {
        List<Arguments> list = new ArrayList<>();
        for (Compression c : Compression.values()) {
            for (FilterKind kind : new FilterKind[] {null, FilterKind.BLOOM, FilterKind.BLOCKED_BLOOM}) {
                for (boolean local : new boolean[] {true, false}) {
                    list.add(Arguments.of(c, kind, local));
                }
            }
        }
        return list.stream();
    }

    private static TableOptions options(Compression c, FilterKind kind) {
        TableOptions o = TableOptions.defaults().withCompression(c).withBlockSize(1024);
        return kind == null ? o.withoutFilter() : o.withFilter(kind, 10);
    }

    @ParameterizedTest(name = "{0} filter={1} local={2}")
    @MethodSource("variants")
    void everyEntryComesBackThroughIteratorsAndGets(Compression c, FilterKind kind, boolean local) throws Exception {
        long seed = System.nanoTime();
        System.out.println("TableRoundTripTest seed " + seed + " " + c + " " + kind + " local=" + local);
        Random rnd = new Random(seed);
        FileSystem fs = local ? LocalFileSystem.INSTANCE : TableFixture.memoryFileSystem(dir);
        TableFixture f = TableFixture.random(rnd, 1500);
        TableOptions opts = options(c, kind);
        TableMetadata meta = f.write(fs, dir, 7, opts);
        assertEquals(f.entries.size(), meta.entries());
        assertArrayEquals(f.userKeys.get(0), meta.smallestUserKey());
        assertArrayEquals(f.userKeys.get(f.userKeys.size() - 1), meta.largestUserKey());
        assertEquals(kind != null, fs.exists(dir.resolve("000007.filter")));
        assertEquals(fs.size(dir.resolve("000007.sst")), meta.fileSize());

        StoreCounters counters = new StoreCounters();
        try (TableReader t = TableReader.open(fs, dir, 7, opts, new BlockCache(1 << 20), counters)) {
            TableMetadata read = t.metadata();
            assertEquals(List.of(meta.fileNumber(), meta.fileSize(), meta.filterFileSize(), meta.entries(),
                    meta.smallestSeq(), meta.largestSeq()), List.of(read.fileNumber(), read.fileSize(),
                    read.filterFileSize(), read.entries(), read.smallestSeq(), read.largestSeq()));
            assertArrayEquals(meta.smallestUserKey(), read.smallestUserKey());
            assertArrayEquals(meta.largestUserKey(), read.largestUserKey());
            assertEquals(kind, t.filterKind());
            assertEquals(kind != null, t.hasFilter());
            assertTrue(t.properties().dataBlocks() > 10, "blocks: " + t.properties().dataBlocks());
            checkIteration(t, f);
            checkSeeks(t, f, rnd);
            checkGets(t, f, rnd);
            t.verify();
        }
    }

    private static void checkIteration(TableReader t, TableFixture f) throws Exception {
        checkIteration(t.iterator(), f);
        // compaction's iterator: blocks read ahead, through the default window and one smaller than
        // some blocks (those are read alone), forwards and backwards
        checkIteration(t.iterator(false), f);
        checkIteration(new TableIterator(t, new Readahead(6 * 1024)), f);
    }

    private static void checkIteration(InternalIterator iterator, TableFixture f) throws Exception {
        try (InternalIterator it = iterator) {
            int i = 0;
            for (it.seekToFirst(); it.valid(); it.next()) {
                assertEntry(f.entries.get(i++), it);
            }
            assertEquals(f.entries.size(), i);
            for (it.seekToLast(); it.valid(); it.prev()) {
                assertEntry(f.entries.get(--i), it);
            }
            assertEquals(0, i);
        }
    }

    private static void checkSeeks(TableReader t, TableFixture f, Random rnd) throws Exception {
        try (InternalIterator it = t.iterator()) {
            for (int round = 0; round < 300; round++) {
                byte[] target = rnd.nextBoolean() ? f.userKeys.get(rnd.nextInt(f.userKeys.size()))
                        : TableFixture.randomKey(rnd);
                int lb = f.lowerBound(target);
                it.seek(target);
                if (lb < f.entries.size()) {
                    assertEntry(f.entries.get(lb), it);
                } else {
                    assertFalse(it.valid());
                }
                it.seekForPrev(target);
                int last = lb;
                while (last < f.entries.size() && java.util.Arrays.equals(f.entries.get(last).key(), target)) {
                    last++;
                }
                if (last > 0) {
                    assertEntry(f.entries.get(last - 1), it);
                    it.prev();
                    if (last > 1) {
                        assertEntry(f.entries.get(last - 2), it);
                    }
                } else {
                    assertFalse(it.valid());
                }
            }
        }
    }

    private static void checkGets(TableReader t, TableFixture f, Random rnd) throws Exception {
        for (int round = 0; round < 500; round++) {
            byte[] key = rnd.nextInt(4) == 0 ? TableFixture.randomKey(rnd) : f.userKeys.get(rnd.nextInt(f.userKeys.size()));
            long snapshot = rnd.nextBoolean() ? InternalKeys.MAX_SEQUENCE : rnd.nextInt(3500);
            TableFixture.Entry want = f.expected(key, snapshot);
            TableLookup got = rnd.nextBoolean() ? t.get(key, snapshot) : t.get(key, Filters.hash(key), snapshot);
            if (want == null) {
                assertNull(got);
            } else {
                assertEquals(want.type(), got.type());
                assertEquals(want.seq(), got.sequence());
                assertArrayEquals(want.value(), got.value());
            }
        }
    }

    private static void assertEntry(TableFixture.Entry e, InternalIterator it) {
        assertTrue(it.valid());
        assertArrayEquals(e.key(), it.key());
        assertEquals(e.seq(), it.sequence());
        assertEquals(e.type(), it.type());
        assertArrayEquals(e.value(), it.value());
    }

    @Test
    void snapshotsSeeTheNewestVersionAtOrBelowThem() throws Exception {
        FileSystem fs = TableFixture.memoryFileSystem(dir);
        TableBuilder b = new TableBuilder(fs, dir, 1, TableOptions.defaults());
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        b.add(k, 30, ValueType.VALUE, bytes("v30"));
        b.add(k, 20, ValueType.DELETION, new byte[0]);
        b.add(k, 10, ValueType.VALUE, bytes("v10"));
        b.finish();
        StoreCounters counters = new StoreCounters();
        try (TableReader t = TableReader.open(fs, dir, 1, TableOptions.defaults(), BlockCache.disabled(), counters)) {
            assertArrayEquals(bytes("v30"), t.get(k, 100).value());
            assertEquals(30, t.get(k, 30).sequence());
            TableLookup tomb = t.get(k, 29);
            assertEquals(ValueType.DELETION, tomb.type());
            assertEquals(20, tomb.sequence());
            assertArrayEquals(bytes("v10"), t.get(k, 19).value());
            assertNull(t.get(k, 9));
            // Seen at snapshot 9 the key is absent, yet the table holds it: a true positive.
            assertEquals(5, counters.filterTruePositives().sum());
            assertEquals(5, counters.filterPositives().sum());
        }
    }

    @Test
    void addRejectsEntriesOutOfInternalOrderAndEmptyTablesAreRefused() throws Exception {
        FileSystem fs = TableFixture.memoryFileSystem(dir);
        TableBuilder b = new TableBuilder(fs, dir, 2, TableOptions.defaults());
        assertThrows(IllegalStateException.class, b::finish);
        b.abandon();
        assertFalse(fs.exists(dir.resolve("000002.sst")));

        b = new TableBuilder(fs, dir, 3, TableOptions.defaults());
        b.add(bytes("b"), 5, ValueType.VALUE, bytes("x"));
        TableBuilder builder = b;
        assertThrows(IllegalArgumentException.class, () -> builder.add(bytes("a"), 9, ValueType.VALUE, bytes("x")));
        assertThrows(IllegalArgumentException.class, () -> builder.add(bytes("b"), 5, ValueType.VALUE, bytes("x")));
        assertThrows(IllegalArgumentException.class, () -> builder.add(bytes("b"), 6, ValueType.VALUE, bytes("x")));
        assertThrows(IllegalArgumentException.class, () -> builder.add(bytes("c"), 1, ValueType.DELETION, bytes("x")));
        b.add(bytes("b"), 4, ValueType.VALUE, bytes("y"));
        b.abandon();
        assertFalse(fs.exists(dir.resolve("000003.sst")));
    }

    @Test
    void closeUnmapsTheFilterAtOnceAndIsIdempotent() throws Exception {
        FileSystem fs = LocalFileSystem.INSTANCE;
        TableFixture f = TableFixture.random(new Random(1), 200);
        f.write(fs, dir, 4, TableOptions.defaults());
        long before = MappedBitStore.openMappings();
        TableReader t = TableReader.open(fs, dir, 4, TableOptions.defaults(), BlockCache.disabled(), new StoreCounters());
        assertEquals(before + 1, MappedBitStore.openMappings());
        assertEquals(fs.size(dir.resolve("000004.filter")), t.filterBytes());
        t.close();
        t.close();
        assertEquals(before, MappedBitStore.openMappings());
        assertThrows(IllegalStateException.class, () -> t.get(bytes("x"), 1));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
