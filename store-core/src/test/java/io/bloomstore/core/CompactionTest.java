package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.manifest.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction reclaims space and releases what it replaces: overwritten keys shrink back to one
 * copy, deleted keys to nothing, replaced tables are unmapped and deleted once the last iterator
 * using them closes, and snapshots keep the versions they see. Deterministic (fixed seeds);
 * the space tolerance is stated per test.
 */
class CompactionTest {
    private static final int KEYS = 2000;

    @TempDir
    Path tmp;

    private static StoreOptions small() {
        return StoreOptions.builder().memtableBytes(32 * 1024).compression(Compression.NONE).blockCacheBytes(1 << 20)
                .baseLevelBytes(64 * 1024).targetFileBytes(32 * 1024).levelSizeRatio(4).build();
    }

    @Test
    void overwritesShrinkToAboutOneCopyAndDeletesToNothing() throws IOException {
        long oneCopy;
        try (Store store = Store.open(tmp.resolve("once"), small())) {
            writeAll(store, 0);
            store.compact();
            oneCopy = tableBytes(store);
        }
        try (Store store = Store.open(tmp.resolve("many"), small())) {
            for (int round = 0; round < 10; round++) {
                writeAll(store, round);
            }
            store.flush();
            long before = diskBytes(tmp.resolve("many"));
            store.compact();
            long after = tableBytes(store);
            System.out.printf("overwrite x10: %d bytes of tables before compact(), %d after; one copy %d%n", before,
                    after, oneCopy);
            // Tolerance: table boundaries and filters differ a little between the two stores; 10%.
            assertTrue(after <= oneCopy * 1.1, after + " bytes after compaction vs one copy of " + oneCopy);
            assertTrue(store.stats().compactions() > 0);
            for (int i = 0; i < KEYS; i += 97) {
                assertArrayEquals(value(9, i), store.get(key(i)));
            }
            for (int i = 0; i < KEYS; i++) {
                store.delete(key(i));
            }
            store.compact();
            StoreStats s = store.stats();
            assertEquals(0, s.totalFiles(), "every tombstone and value dropped at the bottom level");
            assertNull(store.get(key(5)));
        }
        // Close leaves replaced tables it has not deleted yet to the next open, which deletes them
        // on its background thread (awaitCompactions waits for that too).
        try (Store store = Store.open(tmp.resolve("many"), small())) {
            assertEquals(0, store.stats().totalFiles());
            store.awaitCompactions();
            assertEquals(0, tableFiles(tmp.resolve("many")), "replaced tables deleted from disk by the next open");
        }
    }

    @Test
    void replacedTablesStayForOpenIteratorsThenAreUnmappedAndDeleted() throws IOException {
        long baseMappings = MappedBitStore.openMappings();
        Path dir = tmp.resolve("pinned");
        try (Store store = Store.open(dir, small())) {
            writeAll(store, 0);
            store.flush();
            StoreIterator it = store.iterator(null, null);
            long filesBefore = tableFiles(dir);
            writeAll(store, 1);
            store.compact();
            // The iterator still reads the old tables: they stay mapped and on disk.
            assertTrue(MappedBitStore.openMappings() - baseMappings > store.stats().totalFiles());
            int n = 0;
            while (it.hasNext()) {
                KeyValue kv = it.next();
                assertArrayEquals(value(0, n), kv.value(), "the iterator sees the state it started on");
                n++;
            }
            assertEquals(KEYS, n);
            assertTrue(tableFiles(dir) >= filesBefore);
            it.close();
            store.awaitCompactions();
            StoreStats s = store.stats();
            assertEquals(s.totalFiles(), MappedBitStore.openMappings() - baseMappings,
                    "mappings count back to the live tables");
            assertEquals(s.totalFiles(), tableFiles(dir), "replaced tables deleted once released");
        }
        assertEquals(baseMappings, MappedBitStore.openMappings(), "close unmaps everything");
    }

    @Test
    void snapshotsKeepTheirVersionsThroughCompaction() throws IOException {
        // Background compaction stays on: tables it moves between the two compact() calls must not
        // keep old versions out of compact()'s reach.
        try (Store store = Store.open(tmp.resolve("snap"), small())) {
            writeAll(store, 0);
            Snapshot first = store.snapshot();
            writeAll(store, 1);
            for (int i = 0; i < KEYS; i += 2) {
                store.delete(key(i));
            }
            Snapshot second = store.snapshot();
            writeAll(store, 2);
            store.compact();
            for (int i = 0; i < KEYS; i += 37) {
                assertArrayEquals(value(0, i), store.get(key(i), ReadOptions.at(first)));
                if (i % 2 == 0) {
                    assertNull(store.get(key(i), ReadOptions.at(second)));
                } else {
                    assertArrayEquals(value(1, i), store.get(key(i), ReadOptions.at(second)));
                }
                assertArrayEquals(value(2, i), store.get(key(i)));
            }
            first.close();
            second.close();
            long withSnapshots = tableBytes(store);
            store.compact();
            assertTrue(tableBytes(store) < withSnapshots * 0.5, "released snapshots' versions are dropped");
        }
    }

    @Test
    void backgroundCompactionKeepsLevelZeroBounded() throws IOException {
        StoreOptions options = small().toBuilder().l0Triggers(2, 4, 6).build();
        try (Store store = Store.open(tmp.resolve("bg"), options)) {
            for (int round = 0; round < 20; round++) {
                writeAll(store, round);
            }
            StoreStats s = store.stats();
            System.out.printf("background: %d compactions, level-0 tables %d, write amplification %.2f, "
                            + "slowdowns %d, stops %d%n", s.compactions(), s.levels().get(0).files(),
                    s.writeAmplification(), s.writeSlowdowns(), s.writeStops());
            assertTrue(s.compactions() > 0);
            assertTrue(s.levels().get(0).files() <= 6 + 2, "level 0 held near the stop trigger");
            assertTrue(s.writeAmplification() > 1);
            for (int i = 0; i < KEYS; i += 13) {
                assertArrayEquals(value(19, i), store.get(key(i)));
            }
        }
    }

    /**
     * Compaction reads every block of its inputs, but those are not lookups: the data-block reads
     * and block-cache counters that measure disk accesses of reads must not move, and the cache
     * must not be filled with the merged blocks.
     */
    @Test
    void compactionReadsAreNotCountedAsLookupReads() throws IOException {
        try (Store store = Store.open(tmp.resolve("counted"), small())) {
            for (int round = 0; round < 3; round++) {
                writeAll(store, round);
            }
            store.flush();
            store.awaitCompactions();
            StoreStats before = store.stats();
            store.compact();
            StoreStats after = store.stats();
            assertTrue(after.compactionBytesRead() > before.compactionBytesRead(), "compact() merged tables");
            assertEquals(before.dataBlockReads(), after.dataBlockReads(), "data-block reads");
            assertEquals(before.blockCacheHits() + before.blockCacheMisses(),
                    after.blockCacheHits() + after.blockCacheMisses(), "block-cache lookups");
            long firstKeyReads = after.dataBlockReads();
            assertArrayEquals(value(2, 0), store.get(key(0)));
            assertEquals(firstKeyReads + 1, store.stats().dataBlockReads(), "a lookup after compaction reads its block:"
                    + " compaction left nothing in the cache");
        }
    }

    private static void writeAll(Store store, int round) throws IOException {
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(round, i));
        }
    }

    static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /** 100 random bytes, fixed by round and key, so compression or dedup cannot shrink them. */
    static byte[] value(int round, int i) {
        byte[] v = new byte[100];
        new Random(round * 1_000_003L + i).nextBytes(v);
        return v;
    }

    private static long tableBytes(Store store) {
        return store.stats().levels().stream().mapToLong(l -> l.tableBytes() + l.filterFileBytes()).sum();
    }

    private static long diskBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> isTable(p)).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static long tableFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(CompactionTest::isTable).count();
        }
    }

    private static boolean isTable(Path p) {
        FileNames.Parsed parsed = FileNames.parse(p.getFileName().toString());
        return parsed != null && parsed.kind() == FileNames.Kind.TABLE;
    }
}
