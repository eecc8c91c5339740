package io.bloomstore.core.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BlockCacheTest {
    @Test
    void blocksAreKeyedByFileAndOffset() {
        BlockCache c = new BlockCache(1 << 20);
        c.put(1, 0, new byte[] {1});
        c.put(2, 0, new byte[] {2});
        assertArrayEquals(new byte[] {1}, c.get(1, 0));
        assertArrayEquals(new byte[] {2}, c.get(2, 0));
        assertNull(c.get(1, 4096));
    }

    @Test
    void sizeStaysWithinTheCapacityInBytes() {
        BlockCache c = new BlockCache(64 * 1024);
        for (int i = 0; i < 100; i++) {
            c.put(1, i * 4096L, new byte[4096]);
        }
        assertTrue(c.sizeBytes() <= 64 * 1024, "held " + c.sizeBytes());
        assertTrue(c.sizeBytes() > 0);
    }

    @Test
    void invalidatingAFileDropsOnlyItsBlocks() {
        BlockCache c = new BlockCache(1 << 20);
        for (int i = 0; i < 10; i++) {
            c.put(1, i, new byte[100]);
            c.put(2, i, new byte[100]);
        }
        c.invalidateFile(1);
        for (int i = 0; i < 10; i++) {
            assertNull(c.get(1, i));
            assertArrayEquals(new byte[100], c.get(2, i));
        }
        assertEquals(1000, c.sizeBytes());
    }

    @Test
    void capacityZeroDisablesCaching() {
        BlockCache c = BlockCache.disabled();
        assertFalse(c.enabled());
        c.put(1, 0, new byte[10]);
        assertNull(c.get(1, 0));
        assertEquals(0, c.sizeBytes());
        assertThrows(IllegalArgumentException.class, () -> new BlockCache(-1));
    }
}
