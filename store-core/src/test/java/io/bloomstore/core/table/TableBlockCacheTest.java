package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.stats.StoreCounters;

/**
 * Data blocks go through the cache first and the counting reader only on a miss; a block is
 * cached on its second miss (the doorkeeper), by a lookup or a scan alike, and until then decoded
 * into a scratch array the reader reuses.
 */
class TableBlockCacheTest {
    @TempDir
    Path dir;

    @Test
    void repeatedLookupsAreServedFromTheCacheWithoutDataBlockReads() throws Exception {
        FileSystem fs = TableFixture.memoryFileSystem(dir);
        TableFixture f = TableFixture.random(new Random(42), 500);
        f.write(fs, dir, 3, TableOptions.defaults());
        StoreCounters c = new StoreCounters();
        BlockCache cache = new BlockCache(1 << 20);
        try (TableReader t = TableReader.open(fs, dir, 3, TableOptions.defaults(), cache, c)) {
            byte[] key = f.userKeys.get(250);
            assertNotNull(t.get(key, Long.MAX_VALUE));
            assertEquals(1, c.dataBlockReads().sum());
            assertEquals(1, c.blockCacheMisses().sum());
            assertEquals(0, cache.sizeBytes(), "a block a lookup read once is not cached (the doorkeeper)");
            long bytes = c.bytesRead().sum();
            assertTrue(bytes > 0);
            assertNotNull(t.get(key, Long.MAX_VALUE));
            assertEquals(2, c.dataBlockReads().sum());
            assertEquals(2, c.blockCacheMisses().sum());
            assertTrue(cache.sizeBytes() > 0, "read again, the block is cached");
            for (int i = 0; i < 10; i++) {
                assertNotNull(t.get(key, Long.MAX_VALUE));
            }
            assertEquals(2, c.dataBlockReads().sum());
            assertEquals(10, c.blockCacheHits().sum());
            assertEquals(2 * bytes, c.bytesRead().sum());

            long blocks = t.properties().dataBlocks();
            try (InternalIterator it = t.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    it.value();
                }
            }
            assertEquals(blocks + 1, c.dataBlockReads().sum(), "a scan reads each uncached block once");
            assertEquals(t.properties().dataSize() + bytes, c.bytesRead().sum(), "bytes read = stored data blocks");
            long cachedByLookups = cache.sizeBytes();
            assertEquals(cachedByLookups, cache.sizeBytes(), "blocks a scan read once are not cached (the doorkeeper)");
            try (InternalIterator it = t.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    it.value();
                }
            }
            assertEquals(2 * blocks, c.dataBlockReads().sum(), "the second scan reads them again");
            assertTrue(cache.sizeBytes() > cachedByLookups, "and caches them");
            try (InternalIterator it = t.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    it.value();
                }
            }
            assertEquals(2 * blocks, c.dataBlockReads().sum(), "the third scan reads nothing");

            cache.invalidateFile(3);
            assertNotNull(t.get(key, Long.MAX_VALUE));
            assertEquals(2 * blocks + 1, c.dataBlockReads().sum());
        }
    }

    @Test
    void lookupsSpreadOverManyBlocksLeaveTheCacheAloneAndReturnTheirOwnValues() throws Exception {
        FileSystem fs = TableFixture.memoryFileSystem(dir);
        // equal entries, so every block holds about as many keys and a step of three blocks' worth
        // of keys reads each block at most once
        TableFixture f = new TableFixture();
        Random rnd = new Random(7);
        for (int i = 0; i < 5000; i++) {
            byte[] key = String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[100];
            rnd.nextBytes(value);
            f.userKeys.add(key);
            f.entries.add(new TableFixture.Entry(key, 1 + i, ValueType.VALUE, value));
        }
        f.write(fs, dir, 4, TableOptions.defaults());
        StoreCounters c = new StoreCounters();
        BlockCache cache = new BlockCache(1 << 20);
        try (TableReader t = TableReader.open(fs, dir, 4, TableOptions.defaults(), cache, c)) {
            assertTrue(t.properties().dataBlocks() > 20, "blocks: " + t.properties().dataBlocks());
            // one lookup per block: each block missed once, decoded into the scratch array, dropped
            int step = 3 * f.userKeys.size() / (int) t.properties().dataBlocks();
            List<TableLookup> held = new ArrayList<>();
            for (int i = 0; i < f.userKeys.size(); i += step) {
                held.add(t.get(f.userKeys.get(i), Long.MAX_VALUE));
            }
            assertEquals(held.size(), c.dataBlockReads().sum(), "one block read per lookup");
            assertEquals(0, cache.sizeBytes(), "blocks read once stay out of the cache");
            // what earlier lookups returned was copied out of the scratch array before its reuse
            for (int i = 0, j = 0; i < f.userKeys.size(); i += step, j++) {
                TableFixture.Entry e = f.expected(f.userKeys.get(i), Long.MAX_VALUE);
                assertEquals(e.type(), held.get(j).type(), "key " + i);
                assertEquals(e.seq(), held.get(j).sequence(), "key " + i);
                assertArrayEquals(e.value(), held.get(j).value(), "key " + i);
            }
        }
    }

    @Test
    void interleavedScansOfBlocksReadOnceEachKeepTheirOwnBlockAndGiveTheScratchBack() throws Exception {
        FileSystem fs = TableFixture.memoryFileSystem(dir);
        TableFixture f = new TableFixture();
        Random rnd = new Random(11);
        for (int i = 0; i < 4000; i++) {
            byte[] key = String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[100];
            rnd.nextBytes(value);
            f.userKeys.add(key);
            f.entries.add(new TableFixture.Entry(key, 1 + i, ValueType.VALUE, value));
        }
        f.write(fs, dir, 5, TableOptions.defaults());
        StoreCounters c = new StoreCounters();
        BlockCache cache = new BlockCache(1 << 20);
        int pooledBefore = ScratchBlock.pooledOnThisThread();
        try (TableReader t = TableReader.open(fs, dir, 5, TableOptions.defaults(), cache, c)) {
            assertTrue(t.properties().dataBlocks() > 20, "blocks: " + t.properties().dataBlocks());
            // Three cursors on one thread, each over blocks nobody read before, stepped in turn: each
            // block they hold is in their own scratch, so none sees another's bytes.
            int[] starts = {0, 1333, 2666};
            List<InternalIterator> its = new ArrayList<>();
            for (int s : starts) {
                InternalIterator it = t.iterator();
                it.seek(f.userKeys.get(s));
                its.add(it);
            }
            for (int step = 0; step < 1200; step++) {
                for (int i = 0; i < its.size(); i++) {
                    InternalIterator it = its.get(i);
                    int k = starts[i] + step;
                    assertTrue(it.valid(), "cursor " + i + " at " + k);
                    assertArrayEquals(f.userKeys.get(k), it.key(), "cursor " + i + " at " + k);
                    assertArrayEquals(f.entries.get(k).value(), it.value(), "cursor " + i + " at " + k);
                    it.next();
                }
            }
            assertEquals(0, cache.sizeBytes(), "blocks read once stay out of the cache");
            for (InternalIterator it : its) {
                it.close();
            }
            // the cursors took what the pool held, up to three, and made the rest
            int pooled = Math.min(ScratchBlock.POOLED_PER_THREAD, Math.max(pooledBefore, 3));
            assertEquals(pooled, ScratchBlock.pooledOnThisThread(), "closed cursors give their scratch back");
            // the next cursor reuses a pooled scratch: the pool shrinks by one while it is open
            try (InternalIterator it = t.iterator()) {
                it.seek(f.userKeys.get(10));
                assertEquals(pooled - 1, ScratchBlock.pooledOnThisThread());
                assertArrayEquals(f.entries.get(10).value(), it.value());
            }
        }
    }
}
