package io.bloomstore.bloom.storage;

/**
 * Where a newly built filter keeps its bits. Filters opened from a file are always
 * {@link MappedBitStore mapped}.
 */
public enum Storage {
    /** A {@code long[]} on the Java heap. */
    HEAP,
    /** Native memory outside the Java heap. */
    NATIVE;

    public BitStore allocate(long wordCount) {
        return this == HEAP ? new HeapBitStore(wordCount) : new NativeBitStore(wordCount);
    }
}
