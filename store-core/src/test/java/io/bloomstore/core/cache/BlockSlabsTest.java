package io.bloomstore.core.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The block cache keeping its blocks' bytes in slabs: bounded, never overwriting a block a reader holds, moving what it keeps. */
class BlockSlabsTest {
    /** A stand-in block: {@code length} bytes at {@code array[offset...]}, as a cached block's are. */
    private record Bytes(byte[] array, int offset, int length) implements BlockCache.Entry {
        @Override
        public int sizeBytes() {
            return length;
        }

        @Override
        public Bytes movedTo(byte[] to, int at) {
            System.arraycopy(array, offset, to, at, length);
            return new Bytes(to, at, length);
        }

        byte[] content() {
            return Arrays.copyOfRange(array, offset, offset + length);
        }
    }

    /** The bytes block {@code id} of {@code size} holds: told apart by id. */
    private static byte[] content(long id, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(id).nextBytes(b);
        return b;
    }

    /** Caches block {@code id} of table 1 as the engine does: space from the cache, bytes copied there, then put. */
    private static Bytes cache(BlockCache c, long id, int size) {
        byte[] bytes = content(id, size);
        BlockSlabs.Space space = c.allocate(size);
        Bytes b;
        if (space == null) {
            b = new Bytes(bytes, 0, size);
        } else {
            System.arraycopy(bytes, 0, space.array(), space.offset(), size);
            b = new Bytes(space.array(), space.offset(), size);
        }
        c.put(1, id, b, space);
        return b;
    }

    @Test
    void slabsAreAPowerOfTwoLessAnArrayHeaderWithinTheLimits() {
        assertEquals((4 << 20) - 16, BlockSlabs.slabBytes(256L << 20));
        assertEquals((4 << 20) - 16, BlockSlabs.slabBytes(64L << 30));
        assertEquals((2 << 20) - 16, BlockSlabs.slabBytes(32L << 20));
        assertEquals((64 << 10) - 16, BlockSlabs.slabBytes(64 << 10));
    }

    /** Blocks far beyond the capacity go through: the slabs stay within the budget, and what is cached reads back right. */
    @Test
    void slabsStayWithinTheBudgetAndMovedBlocksKeepTheirBytes() {
        long capacity = 4 << 20;
        BlockCache c = new BlockCache(capacity);
        BlockSlabs slabs = new BlockSlabs(capacity);
        SplittableRandom random = new SplittableRandom(7);
        long maxHeld = 0;
        for (int i = 0; i < 20_000; i++) {
            // A hot set read again and again (kept, and moved when its slab retires) among blocks read once.
            long id = random.nextInt(4) == 0 ? random.nextInt(200) : 1_000 + i;
            if (c.get(1, id) == null) {
                cache(c, id, 1_000 + (int) (id % 3_000));
            }
            maxHeld = Math.max(maxHeld, c.slabBytes());
        }
        assertTrue(c.sizeBytes() <= capacity, "live " + c.sizeBytes());
        assertTrue(maxHeld <= slabs.budgetBytes() + 2L * slabs.slabBytes(),
                "slabs held " + maxHeld + " bytes, budget " + slabs.budgetBytes());
        int hot = 0;
        for (long id = 0; id < 200; id++) {
            Bytes b = (Bytes) c.get(1, id);
            if (b != null) {
                assertArrayEquals(content(id, 1_000 + (int) (id % 3_000)), b.content(), "block " + id);
                hot++;
            }
        }
        assertTrue(hot > 150, "only " + hot + " of the 200 hot blocks stayed cached");
    }

    /** A reader keeps reading an evicted block where it was: a slab's space is never handed out twice. */
    @Test
    void aBlockHeldByAReaderIsNeverOverwritten() {
        BlockCache c = new BlockCache(1 << 20);
        List<Bytes> held = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            Bytes b = cache(c, i, 2_000);
            if (i % 100 == 0) {
                held.add(b);
            }
        }
        for (int j = 0; j < held.size(); j++) {
            assertArrayEquals(content(j * 100L, 2_000), held.get(j).content(), "block " + j * 100);
        }
        assertNull(c.get(1, 0), "the first block was evicted long ago");
    }

    @Test
    void aBlockTooLargeForASlabKeepsItsOwnArray() {
        BlockCache c = new BlockCache(1 << 20);
        int slab = BlockSlabs.slabBytes(1 << 20);
        assertNull(c.allocate(slab / 4 + 1));
        Bytes b = cache(c, 1, slab / 4 + 1);
        assertEquals(0, b.offset());
        assertNotNull(c.get(1, 1));
        assertEquals(0, c.slabBytes());
    }

    @Test
    void invalidatingAndClearingReleaseTheSlabs() {
        BlockCache c = new BlockCache(1 << 20);
        for (int i = 0; i < 100; i++) {
            cache(c, i, 1_000);
        }
        c.invalidateFile(1);
        assertEquals(0, c.sizeBytes());
        for (int i = 0; i < 100; i++) {
            cache(c, i, 1_000);
        }
        assertTrue(c.slabBytes() > 0);
        c.clear();
        assertEquals(0, c.slabBytes());
        assertEquals(0, c.sizeBytes());
        assertNull(c.get(1, 5));
        Bytes again = cache(c, 5, 1_000);
        assertEquals(again, c.get(1, 5));
    }

    /** Threads caching and reading at once (slabs retiring under them): every block read holds its own bytes. Seed 11. */
    @Test
    void concurrentReadersAndWritersSeeOnlyTheirBlocksBytes() throws Exception {
        BlockCache c = new BlockCache(2 << 20);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = 11 + t;
                done.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    int checked = 0;
                    for (int i = 0; i < 20_000; i++) {
                        long id = random.nextInt(3_000);
                        int size = 500 + (int) (id % 2_500);
                        Bytes b = (Bytes) c.get(1, id);
                        if (b == null) {
                            b = cache(c, id, size);
                        }
                        if (!Arrays.equals(content(id, size), b.content())) {
                            throw new AssertionError("block " + id + " read another block's bytes");
                        }
                        checked++;
                    }
                    return checked;
                }));
            }
            for (Future<Integer> f : done) {
                assertEquals(20_000, f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(c.sizeBytes() <= 2 << 20);
    }
}
