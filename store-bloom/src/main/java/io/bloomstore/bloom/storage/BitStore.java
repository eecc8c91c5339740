package io.bloomstore.bloom.storage;

/**
 * A fixed-size array of 64-bit words holding a filter's bits or counters, addressed with
 * {@code long} indexes so filters past 2^31 bits work.
 *
 * <p>Bit {@code i} is bit {@code i & 63} of word {@code i >>> 6}; words are little-endian
 * 64-bit integers. That is also the payload layout on disk (docs/format/filter.md), so a
 * mapped file is used in place and never copied.
 *
 * <p>Thread safety: any number of threads may read concurrently. Writes must be confined to
 * one thread (or externally synchronized); readers racing with a writer may see either the
 * old or the new word. {@link #close()} must not race with any other call.
 *
 * <p>Three backings: {@link HeapBitStore} (a {@code long[]}), {@link NativeBitStore}
 * (off-heap memory) and {@link MappedBitStore} (a region of a memory-mapped file).
 */
public interface BitStore extends AutoCloseable {

    /** Number of 64-bit words. */
    long wordCount();

    /** Size in bytes: {@code wordCount() * 8}. */
    default long byteSize() {
        return wordCount() * Long.BYTES;
    }

    long getWord(long wordIndex);

    void setWord(long wordIndex, long value);

    /** Whether this store lives outside the Java heap (native memory or a mapping). */
    boolean isOffHeap();

    default boolean getBit(long bitIndex) {
        return (getWord(bitIndex >>> 6) & (1L << bitIndex)) != 0;
    }

    default void setBit(long bitIndex) {
        long w = bitIndex >>> 6;
        setWord(w, getWord(w) | (1L << bitIndex));
    }

    /** Number of set bits over the whole store. */
    default long bitCount() {
        long c = 0;
        for (long i = 0, n = wordCount(); i < n; i++) {
            c += Long.bitCount(getWord(i));
        }
        return c;
    }

    /**
     * ORs every word of {@code other} into this store: the union of two filters with the same
     * layout.
     *
     * @throws IllegalArgumentException when the word counts differ
     */
    default void orWith(BitStore other) {
        long n = wordCount();
        if (other.wordCount() != n) {
            throw new IllegalArgumentException("cannot OR " + other.wordCount() + " words into " + n);
        }
        for (long w = 0; w < n; w++) {
            setWord(w, getWord(w) | other.getWord(w));
        }
    }

    /** Releases the memory or the mapping. Idempotent; the store is unusable afterwards. */
    @Override
    void close();

    /** Number of words needed for {@code bits} bits. */
    static long wordsFor(long bits) {
        return (bits + 63) >>> 6;
    }
}
