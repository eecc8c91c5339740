package io.bloomstore.core.table;

/**
 * A thread's reusable array for data blocks decoded to be searched once and dropped: a point
 * lookup whose block the block cache does not admit ({@link io.bloomstore.core.cache.BlockCache#admit})
 * decodes it here, so the lookup allocates no block on the heap. Arrays above
 * {@link #MAX_KEPT_BYTES} (a block holding a huge value) are handed out once and not kept, so a
 * thread that once read a 32 MiB value does not hold 32 MiB for its life.
 *
 * <p>Thread safety: not thread-safe; one per thread ({@link #forThisThread()}).
 */
final class ScratchBlock {
    static final int MAX_KEPT_BYTES = 1 << 20;
    private static final int INITIAL_BYTES = 16 << 10;
    private static final ThreadLocal<ScratchBlock> SCRATCH = ThreadLocal.withInitial(ScratchBlock::new);

    private byte[] array = new byte[INITIAL_BYTES];
    private int length;

    static ScratchBlock forThisThread() {
        return SCRATCH.get();
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
    int length() {
        return length;
    }

    /** The capacity kept (for tests of the cap). */
    int keptBytes() {
        return array.length;
    }
}
