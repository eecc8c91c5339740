package io.bloomstore.bloom.storage;

/**
 * A run of off-heap bytes read and written as little-endian 64-bit words at byte offsets:
 * native memory or a read-only file mapping, from one {@link OffHeapBackend}. It holds no file
 * descriptor: a mapping outlives the channel it was made from.
 *
 * <p>Thread safety: as {@link BitStore}; {@link #free()} must not race with any other call, and
 * the memory must not be touched after it.
 */
interface WordMemory {

    long getLong(long byteOffset);

    void putLong(long byteOffset, long value);

    /** Unmaps or frees the memory now, not when the garbage collector gets to it. */
    void free();
}
