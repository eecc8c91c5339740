package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.stats.StoreCounters;

/** Data blocks go through the cache first and the counting reader only on a miss. */
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
            long bytes = c.bytesRead().sum();
            assertTrue(bytes > 0);
            for (int i = 0; i < 10; i++) {
                assertNotNull(t.get(key, Long.MAX_VALUE));
            }
            assertEquals(1, c.dataBlockReads().sum());
            assertEquals(10, c.blockCacheHits().sum());
            assertEquals(bytes, c.bytesRead().sum());

            long blocks = t.properties().dataBlocks();
            try (InternalIterator it = t.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    it.value();
                }
            }
            assertEquals(blocks, c.dataBlockReads().sum(), "each block read once, then cached");
            assertEquals(t.properties().dataSize(), c.bytesRead().sum(), "bytes read = stored data blocks");

            cache.invalidateFile(3);
            assertNotNull(t.get(key, Long.MAX_VALUE));
            assertEquals(blocks + 1, c.dataBlockReads().sum());
        }
    }
}
