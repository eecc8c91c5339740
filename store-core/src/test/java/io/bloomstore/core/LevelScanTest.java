package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.UnsyncedFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans over a level of many tables: a seek reads a block of one table per level, not of every
 * table whose range lies past the start key, and walking across table boundaries — forwards and
 * backwards, from any start, with deletions and overwrites in newer tables — returns exactly what
 * a model {@link TreeMap} holds. Seed 20261124.
 */
class LevelScanTest {
    private static final int KEYS = 20_000;

    @TempDir
    Path dir;

    private static StoreOptions options() {
        // Tables of about 16 KiB: the keys below fill over a hundred of them at the deepest level.
        return StoreOptions.builder().autoCompaction(false).targetFileBytes(16 << 10).blockSize(4096)
                .compression(Compression.NONE).build();
    }

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int version) {
        byte[] v = new byte[100];
        Arrays.fill(v, (byte) ('a' + (i + version) % 26));
        return v;
    }

    /**
     * A scan reads the blocks of the entries its caller takes and no further: a seek to any key
     * followed by one {@code next} reads exactly one data block (the cache is off, so every block
     * used is a read), also for the last key of a block. An iterator that stayed one entry ahead
     * read the following block for those keys. Nothing is read before the first {@code hasNext}
     * beyond the seek's own block.
     */
    @Test
    void aScanReadsNoBlockPastTheLastEntryTaken() throws IOException {
        StoreOptions noCache = options().toBuilder().blockCacheBytes(0).build();
        int keys = 2_000;
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, noCache)) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i, 0));
            }
            store.compact();
            int lastInBlock = 0;
            for (int i = 0; i < keys; i++) {
                long before = store.stats().dataBlockReads();
                try (StoreIterator it = store.iterator(key(i), null)) {
                    assertEquals(1, store.stats().dataBlockReads() - before, "the seek to key " + i);
                    assertArrayEquals(key(i), it.next().key());
                }
                long reads = store.stats().dataBlockReads() - before;
                assertEquals(1, reads, "a seek to key " + i + " and one next");
                // Count the keys that end a block: reading two entries from there takes two blocks.
                before = store.stats().dataBlockReads();
                try (StoreIterator it = store.iterator(key(i), null)) {
                    it.next();
                    if (i + 1 < keys) {
                        it.next();
                    }
                }
                lastInBlock += store.stats().dataBlockReads() - before - 1;
            }
            // 112-byte entries in 4 KiB blocks: about 1 in 36 keys ends a block.
            assertTrue(lastInBlock >= keys / 40 && lastInBlock <= keys / 30, "keys ending a block: " + lastInBlock);
        }
    }

    @Test
    void aSeekReadsOneTablePerLevelNotEveryTablePastTheStartKey() throws IOException {
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i, 0));
            }
            store.compact();
        }
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options())) {
            StoreStats s = store.stats();
            int deepTables = 0;
            for (StoreStats.LevelStats l : s.levels()) {
                deepTables += l.level() > 0 ? l.files() : 0;
            }
            assertTrue(deepTables >= 100, "tables below level 0: " + deepTables);
            long before = store.stats().dataBlockReads();
            int read = 0;
            try (StoreIterator it = store.iterator(key(100), null)) {
                while (it.hasNext() && read < 10) {
                    assertArrayEquals(key(100 + read), it.next().key());
                    read++;
                }
            }
            assertEquals(10, read);
            long reads = store.stats().dataBlockReads() - before;
            // Ten 112-byte entries from one 4 KiB block, maybe two: the other tables are not touched.
            assertTrue(reads <= 2, "data blocks read by a seek and 10 nexts over " + deepTables + " tables: " + reads);

            before = store.stats().dataBlockReads();
            read = 0;
            try (StoreIterator it = store.reverseIterator(null, key(KEYS - 100))) {
                while (it.hasNext() && read < 10) {
                    assertArrayEquals(key(KEYS - 101 - read), it.next().key());
                    read++;
                }
            }
            reads = store.stats().dataBlockReads() - before;
            assertTrue(reads <= 2, "data blocks read by a reverse seek and 10 steps: " + reads);
        }
    }

    @Test
    void scansAcrossTableBoundariesMatchAModel() throws IOException {
        Random random = new Random(20261124);
        NavigableMap<String, byte[]> model = new TreeMap<>();
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options())) {
            for (int i = 0; i < KEYS; i += 2) {
                store.put(key(i), value(i, 0));
                model.put(new String(key(i), StandardCharsets.UTF_8), value(i, 0));
            }
            store.compact();
            // Newer versions in shallower levels: overwrites, deletions and new keys between old ones.
            for (int round = 1; round <= 2; round++) {
                for (int n = 0; n < 3_000; n++) {
                    int i = random.nextInt(KEYS);
                    String k = new String(key(i), StandardCharsets.UTF_8);
                    if (random.nextInt(4) == 0) {
                        store.delete(key(i));
                        model.remove(k);
                    } else {
                        store.put(key(i), value(i, round));
                        model.put(k, value(i, round));
                    }
                }
                store.flush();
            }
            check(store, model, random);
        }
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, options())) {
            check(store, model, random);
            store.compact();
            check(store, model, random);
        }
    }

    private static void check(Store store, NavigableMap<String, byte[]> model, Random random) throws IOException {
        assertScan(store.iterator(null, null), model);
        assertScan(store.reverseIterator(null, null), model.descendingMap());
        for (int n = 0; n < 200; n++) {
            int a = random.nextInt(KEYS + 10);
            int b = a + random.nextInt(n % 10 == 0 ? KEYS : 500);
            String from = new String(key(a), StandardCharsets.UTF_8);
            String to = new String(key(b), StandardCharsets.UTF_8);
            assertScan(store.iterator(key(a), key(b)), model.subMap(from, true, to, false));
            assertScan(store.reverseIterator(key(a), key(b)), model.subMap(from, true, to, false).descendingMap());
            assertScan(store.iterator(key(a), null), model.tailMap(from, true));
            assertScan(store.reverseIterator(null, key(b)), model.headMap(to, false).descendingMap());
        }
    }

    private static void assertScan(StoreIterator it, Map<String, byte[]> expected) {
        List<String> got = new ArrayList<>();
        try (it) {
            var e = expected.entrySet().iterator();
            while (it.hasNext()) {
                KeyValue kv = it.next();
                String k = new String(kv.key(), StandardCharsets.UTF_8);
                got.add(k);
                assertTrue(e.hasNext(), "scan returned " + k + " past the model's end");
                Map.Entry<String, byte[]> m = e.next();
                assertEquals(m.getKey(), k);
                assertArrayEquals(m.getValue(), kv.value(), k);
            }
            assertTrue(!e.hasNext(), "scan stopped after " + got.size() + " entries, model has more");
        }
    }
}
