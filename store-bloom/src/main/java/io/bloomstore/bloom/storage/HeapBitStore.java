package io.bloomstore.bloom.storage;

/**
 * A {@link BitStore} on the Java heap: one {@code long[]}. Up to 2^31 − 1 words (2^37 bits).
 *
 * <p>Thread safety: as {@link BitStore}.
 */
public final class HeapBitStore implements BitStore {
    private final long[] words;

    public HeapBitStore(long wordCount) {
        if (wordCount < 0 || wordCount > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("heap bit store cannot hold " + wordCount + " words");
        }
        this.words = new long[(int) wordCount];
    }

    @Override
    public long wordCount() {
        return words.length;
    }

    @Override
    public long getWord(long wordIndex) {
        return words[(int) wordIndex];
    }

    @Override
    public void setWord(long wordIndex, long value) {
        words[(int) wordIndex] = value;
    }

    @Override
    public boolean isOffHeap() {
        return false;
    }

    @Override
    public void close() {
        // Nothing to release: the garbage collector owns the array.
    }
}
