package io.bloomstore.core.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BlockCacheTest {
    /** A stand-in block weighing {@code size} bytes, told apart by {@code id}. */
    private record Sized(int id, int size) implements BlockCache.Entry {
        @Override
        public int sizeBytes() {
            return size;
        }
    }

    @Test
    void blocksAreKeyedByFileAndOffset() {
        BlockCache c = new BlockCache(1 << 20);
        c.put(1, 0, new Sized(1, 1));
        c.put(2, 0, new Sized(2, 1));
        assertEquals(new Sized(1, 1), c.get(1, 0));
        assertEquals(new Sized(2, 1), c.get(2, 0));
        assertNull(c.get(1, 4096));
    }

    @Test
    void sizeStaysWithinTheCapacityInBytes() {
        BlockCache c = new BlockCache(64 * 1024);
        for (int i = 0; i < 100; i++) {
            c.put(1, i * 4096L, new Sized(i, 4096));
        }
        assertTrue(c.sizeBytes() <= 64 * 1024, "held " + c.sizeBytes());
        assertTrue(c.sizeBytes() > 0);
    }

    @Test
    void invalidatingAFileDropsOnlyItsBlocks() {
        BlockCache c = new BlockCache(1 << 20);
        for (int i = 0; i < 10; i++) {
            c.put(1, i, new Sized(i, 100));
            c.put(2, i, new Sized(i, 100));
        }
        c.invalidateFile(1);
        for (int i = 0; i < 10; i++) {
            assertNull(c.get(1, i));
            assertEquals(new Sized(i, 100), c.get(2, i));
        }
        assertEquals(1000, c.sizeBytes());
    }

    /** The per-file index that makes invalidateFile cost only the file's blocks follows evictions. */
    @Test
    void evictedBlocksLeaveThePerFileIndex() {
        BlockCache c = new BlockCache(64 * 1024);
        for (int i = 0; i < 1000; i++) {
            c.put(i % 7, i * 4096L, new Sized(i, 4096));
        }
        c.sizeBytes();
        assertTrue(c.indexedBlocks() <= 16, "index holds " + c.indexedBlocks() + " offsets for at most 16 blocks");
        for (int f = 0; f < 7; f++) {
            c.invalidateFile(f);
        }
        assertEquals(0, c.indexedBlocks());
        assertEquals(0, c.sizeBytes());
    }

    @Test
    void capacityZeroDisablesCaching() {
        BlockCache c = BlockCache.disabled();
        assertFalse(c.enabled());
        c.put(1, 0, new Sized(0, 10));
        assertNull(c.get(1, 0));
        assertEquals(0, c.sizeBytes());
        assertThrows(IllegalArgumentException.class, () -> new BlockCache(-1));
    }

    @Test
    void theDoorkeeperAdmitsABlockOnItsSecondMissAndForgetsAfterItsWindow() {
        assertFalse(BlockCache.disabled().admit(1, 0), "a disabled cache admits nothing");
        // 1 MiB: a window of 2 * 256 = 512 sightings
        BlockCache c = new BlockCache(1 << 20);
        assertFalse(c.admit(7, 4096), "first miss: not admitted");
        assertTrue(c.admit(7, 4096), "second miss: admitted");
        assertTrue(c.admit(7, 4096), "and again while remembered");
        assertFalse(c.admit(8, 4096), "another file's block at the same offset is another block");
        // blocks seen once each: with a 1.4% FPR at a full window, far fewer than 10% pass
        int admitted = 0;
        for (int i = 0; i < 500; i++) {
            if (c.admit(100 + i, i * 4096L)) {
                admitted++;
            }
        }
        assertTrue(admitted < 50, "distinct blocks admitted on their first miss: " + admitted);
        // the window fills: everything is forgotten, so block (7, 4096) starts over
        for (int i = 0; i < 600; i++) {
            c.admit(10_000 + i, 0);
        }
        assertFalse(c.admit(7, 4096), "forgotten after the window");
        c.clear();
        assertFalse(c.admit(8, 4096));
    }

    /** Eviction takes the least recently used block: a block read since it was cached outlives older ones. */
    @Test
    void evictionTakesTheLeastRecentlyUsedBlock() {
        // 64 KiB: one shard of sixteen 4 KiB blocks
        BlockCache c = new BlockCache(64 * 1024);
        for (int i = 0; i < 16; i++) {
            c.put(1, i * 4096L, new Sized(i, 4096));
        }
        assertEquals(new Sized(0, 4096), c.get(1, 0), "block 0, the oldest, is read: now the most recent");
        c.put(1, 16 * 4096L, new Sized(16, 4096));
        assertEquals(new Sized(0, 4096), c.get(1, 0), "the block just read stays");
        assertNull(c.get(1, 4096), "block 1, now the least recently used, was evicted");
        assertEquals(new Sized(16, 4096), c.get(1, 16 * 4096L));
        assertEquals(16 * 4096, c.sizeBytes());
    }

    /** Large caches are sharded; every shard keeps to its share, so the whole stays within the capacity. */
    @Test
    void aShardedCacheStaysWithinItsCapacityAndFindsEveryBlockItHolds() {
        BlockCache c = new BlockCache(8 << 20);
        for (int i = 0; i < 4096; i++) {
            c.put(i % 13, i * 4096L, new Sized(i, 4096));
        }
        assertTrue(c.sizeBytes() <= 8 << 20, "held " + c.sizeBytes());
        assertTrue(c.sizeBytes() >= 6 << 20, "held only " + c.sizeBytes());
        int found = 0;
        for (int i = 0; i < 4096; i++) {
            BlockCache.Entry e = c.get(i % 13, i * 4096L);
            if (e != null) {
                assertEquals(new Sized(i, 4096), e);
                found++;
            }
        }
        assertEquals(c.sizeBytes() / 4096, found);
        assertEquals(found, c.indexedBlocks());
    }
}
