package io.bloomstore.core.table;

import java.util.ArrayDeque;

/**
 * A reusable array for data blocks the block cache does not admit
 * ({@link io.bloomstore.core.cache.BlockCache#admit}), so reading them allocates no block on the
 * heap. A point lookup decodes into its thread's own ({@link #forThisThread()}), searched once and
 * dropped; an iterator borrows one from its thread's small pool ({@link #borrow()}), holds its
 * current block there while it walks it, and gives it back when closed ({@link #release()}), so a
 * scan of blocks read once allocates none either. Arrays above {@link #MAX_KEPT_BYTES} (a block
 * holding a huge value) are handed out once and not kept, so a thread that once read a 32 MiB
 * value does not hold 32 MiB for its life; a thread's pool keeps at most {@link #POOLED_PER_THREAD}
 * blocks and {@link #MAX_POOLED_BYTES} bytes, whatever the blocks' sizes.
 *
 * <p>Thread safety: not thread-safe; one user at a time. Released blocks go to the releasing
 * thread's pool.
 */
final class ScratchBlock {
    static final int MAX_KEPT_BYTES = 1 << 20;
    /** Borrowed blocks a thread keeps for reuse: enough for a scan over every level and several level-0 tables. */
    static final int POOLED_PER_THREAD = 16;
    /** Bytes of arrays a thread's pool keeps at most (sixteen 4 KiB blocks take 64 KiB). */
    static final int MAX_POOLED_BYTES = 1 << 20;
    private static final int INITIAL_BYTES = 16 << 10;
    private static final byte[] NONE = new byte[0];
    // Thread locals as subclasses, not withInitial lambdas: no lambda class spun at a process's first lookup.
    private static final ThreadLocal<ScratchBlock> SCRATCH = new ThreadLocal<>() {
        @Override
        protected ScratchBlock initialValue() {
            return new ScratchBlock(INITIAL_BYTES);
        }
    };
    private static final ThreadLocal<Pool> POOL = new ThreadLocal<>() {
        @Override
        protected Pool initialValue() {
            return new Pool();
        }
    };

    /** A thread's pooled blocks and the bytes their arrays take. */
    private static final class Pool {
        final ArrayDeque<ScratchBlock> blocks = new ArrayDeque<>();
        long bytes;
    }

    private byte[] array;
    private int length;
    /** The cursor point lookups on this thread reuse ({@link #iterator}). */
    private BlockIterator lookupCursor;

    private ScratchBlock(int initialBytes) {
        array = initialBytes == 0 ? NONE : new byte[initialBytes];
    }

    static ScratchBlock forThisThread() {
        return SCRATCH.get();
    }

    /** A scratch block from this thread's pool (or a new, empty one), to {@link #release()} when done. */
    static ScratchBlock borrow() {
        Pool pool = POOL.get();
        ScratchBlock b = pool.blocks.pollFirst();
        if (b == null) {
            return new ScratchBlock(0);
        }
        pool.bytes -= b.array.length;
        return b;
    }

    /** Gives this block back to the calling thread's pool; the caller no longer reads it. */
    void release() {
        Pool pool = POOL.get();
        if (pool.blocks.size() < POOLED_PER_THREAD && pool.bytes + array.length <= MAX_POOLED_BYTES) {
            pool.blocks.addFirst(this);
            pool.bytes += array.length;
        }
    }

    /** Blocks in this thread's pool (for tests). */
    static int pooledOnThisThread() {
        return POOL.get().blocks.size();
    }

    /** Bytes of the arrays in this thread's pool (for tests of the cap). */
    static long pooledBytesOnThisThread() {
        return POOL.get().bytes;
    }

    /** An array of at least {@code n} bytes, whose first {@code n} the caller fills; the previous contents are gone. */
    byte[] reserve(int n) {
        length = n;
        if (n > MAX_KEPT_BYTES) {
            return new byte[n];
        }
        if (array.length < n) {
            array = new byte[Math.min(MAX_KEPT_BYTES, Math.max(n, 2 * array.length))];
        }
        return array;
    }

    /** Bytes of the last {@link #reserve}. */
    /**
     * A cursor over {@code block} for a point lookup, the same object on every call on this
     * scratch's thread: valid until the thread's next call, so nothing may keep it (a lookup
     * allocates no cursor).
     */
    BlockIterator iterator(Block block) {
        BlockIterator c = lookupCursor;
        if (c == null) {
            c = new BlockIterator(block);
            lookupCursor = c;
            return c;
        }
        return c.reset(block);
    }

    int length() {
        return length;
    }

    /** The capacity kept (for tests of the cap). */
    int keptBytes() {
        return array.length;
    }
}
