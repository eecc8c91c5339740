package io.bloomstore.core.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the block cache keeps the bytes of the blocks it holds: large arrays ("slabs") filled one
 * block after another, instead of an array of its own per block.
 *
 * <p>Why: a cache of small arrays is the worst case for the JVM's collector. Each block was
 * allocated young and copied by one or two collections before it reached the old generation, and
 * the collector's time spent copying made G1 grow the heap: 500 stores reading into a 256 MiB
 * cache ended with some 840 MiB of heap committed for 270 MiB live (docs/benchmarks.md,
 * "Many stores"). A slab as large as a G1 region or more is a humongous object: allocated
 * straight in the old generation, never copied, and freed as a whole once nothing refers to it.
 * Slabs are sized a power of two MiB less an array header ({@link #slabBytes}), so one fills its
 * regions exactly.
 *
 * <p>Space is never reused inside a slab: a reader may still hold a block the cache evicted, and
 * reads it where it was. An evicted block's bytes become dead space; once the slabs hold more than
 * the cache's capacity plus a slack ({@link #budgetBytes}), the slab with the fewest live bytes is
 * retired: the blocks it still holds are copied to the slab being filled (and become the most
 * recently used, a second chance) and the slab is dropped, to be freed by the collector when its
 * last reader lets go. The cache's LRU order evicts old blocks first, so the slab retired is
 * nearly empty in steady state.
 *
 * <p>Locks: the allocator's ({@link #lock}) is never held while taking a shard's lock; a slab's
 * own monitor guards its residents and live bytes and is taken inside a shard's lock. One
 * retirement runs at a time.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class BlockSlabs {
    /** The largest slab: 4 MiB less the 16-byte array header, so it fills 4 MiB of regions exactly. */
    static final int MAX_SLAB_BYTES = (4 << 20) - 16;
    private static final int MIN_SLAB_BYTES = (64 << 10) - 16;
    private static final int ARRAY_HEADER = 16;

    /** One slab: its bytes, how far they are filled, and the blocks cached in it. */
    static final class Slab {
        final byte[] bytes;
        /** Bytes handed out; guarded by the allocator's lock. */
        int used;
        /** Guarded by this slab's monitor. */
        private long liveBytes;
        private boolean dropped;
        private final List<BlockCache.Key> residents = new ArrayList<>();

        Slab(int size) {
            this.bytes = new byte[size];
        }

        /** Records {@code k} as cached here; false when the slab was retired meanwhile (then do not cache it). */
        synchronized boolean register(BlockCache.Key k, int size) {
            if (dropped) {
                return false;
            }
            residents.add(k);
            liveBytes += size;
            return true;
        }

        synchronized void release(int size) {
            liveBytes -= size;
        }

        synchronized long liveBytes() {
            return liveBytes;
        }

        /** Retires this slab: no block is cached here any more; returns those that were. */
        synchronized List<BlockCache.Key> drop() {
            dropped = true;
            return residents;
        }
    }

    /** Room for one block: at {@link #offset()} of {@link #array()}, a slab's bytes. */
    public static final class Space {
        final Slab slab;
        private final int offset;

        Space(Slab slab, int offset) {
            this.slab = slab;
            this.offset = offset;
        }

        public byte[] array() {
            return slab.bytes;
        }

        public int offset() {
            return offset;
        }
    }

    private final int slabBytes;
    private final long budgetBytes;
    private final Object lock = new Object();
    /** Every slab not retired, the one being filled last; guarded by {@link #lock}. */
    private final List<Slab> slabs = new ArrayList<>();
    /** Guarded by {@link #lock}. */
    private boolean retiring;

    /** Slabs for a cache of {@code capacityBytes} (more than 0). */
    BlockSlabs(long capacityBytes) {
        this.slabBytes = slabBytes(capacityBytes);
        this.budgetBytes = capacityBytes + Math.max(2L * slabBytes, capacityBytes / 8);
    }

    /** A power of two MiB-or-KiB less an array header, about a sixteenth of the capacity, within the limits. */
    static int slabBytes(long capacityBytes) {
        long target = Math.max(MIN_SLAB_BYTES + ARRAY_HEADER, Math.min(MAX_SLAB_BYTES + ARRAY_HEADER, capacityBytes / 16));
        return (int) Long.highestOneBit(target) - ARRAY_HEADER;
    }

    int slabBytes() {
        return slabBytes;
    }

    /** The slabs' total bytes may pass this before the emptiest is retired. */
    long budgetBytes() {
        return budgetBytes;
    }

    /** Bytes of all slabs held (live blocks and dead space). */
    long heldBytes() {
        synchronized (lock) {
            return (long) slabs.size() * slabBytes;
        }
    }

    /** Whether a block of {@code size} bytes goes into a slab (else it keeps an array of its own). */
    boolean fits(int size) {
        return size <= slabBytes / 4;
    }

    /**
     * Room for a block of {@code size} bytes ({@link #fits}) in the slab being filled, starting a
     * new one when it is full. Starting one past the budget retires the emptiest slab first, on
     * this thread, whose caller must hold no shard lock ({@code cache} is whose shards to update).
     */
    Space allocate(int size, BlockCache cache) {
        Slab victim = null;
        Space space;
        synchronized (lock) {
            Slab current = slabs.isEmpty() ? null : slabs.get(slabs.size() - 1);
            if (current == null || current.used + size > slabBytes) {
                current = new Slab(slabBytes);
                slabs.add(current);
                if ((long) slabs.size() * slabBytes > budgetBytes && !retiring) {
                    victim = emptiest();
                    if (victim != null) {
                        slabs.remove(victim);
                        retiring = true;
                    }
                }
            }
            space = new Space(current, current.used);
            current.used += size;
        }
        if (victim != null) {
            try {
                cache.moveAll(victim.drop());
            } finally {
                synchronized (lock) {
                    retiring = false;
                }
            }
        }
        return space;
    }

    /** Room for a block being moved out of a retired slab: as {@link #allocate}, never retiring another. */
    Space allocateForMove(int size) {
        synchronized (lock) {
            Slab current = slabs.isEmpty() ? null : slabs.get(slabs.size() - 1);
            if (current == null || current.used + size > slabBytes) {
                current = new Slab(slabBytes);
                slabs.add(current);
            }
            Space space = new Space(current, current.used);
            current.used += size;
            return space;
        }
    }

    /** The slab with the fewest live bytes, not the one being filled; guarded by {@link #lock}. */
    private Slab emptiest() {
        Slab best = null;
        long bestLive = Long.MAX_VALUE;
        for (int i = 0; i < slabs.size() - 1; i++) {
            long live = slabs.get(i).liveBytes();
            if (live < bestLive) {
                best = slabs.get(i);
                bestLive = live;
            }
        }
        return best;
    }

    /** Drops every slab (the cache was cleared). */
    void clear() {
        synchronized (lock) {
            for (Slab s : slabs) {
                s.drop();
            }
            slabs.clear();
        }
    }
}
