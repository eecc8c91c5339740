package io.bloomstore.bloom.storage;

/**
 * A {@link BitStore} in native (off-heap) memory from the JVM's {@link OffHeapBackend#active()
 * active} backend. The memory is zeroed on allocation and freed by {@link #close()}, not by the
 * garbage collector.
 *
 * <p>Thread safety: as {@link BitStore}.
 */
public final class NativeBitStore implements BitStore {
    private final long wordCount;
    private WordMemory memory;

    public NativeBitStore(long wordCount) {
        if (wordCount < 0) {
            throw new IllegalArgumentException("negative word count: " + wordCount);
        }
        this.wordCount = wordCount;
        this.memory = OffHeapBackend.active().allocate(wordCount * Long.BYTES);
    }

    @Override
    public long wordCount() {
        return wordCount;
    }

    @Override
    public long getWord(long wordIndex) {
        return memory.getLong(wordIndex << 3);
    }

    @Override
    public void setWord(long wordIndex, long value) {
        memory.putLong(wordIndex << 3, value);
    }

    @Override
    public boolean isOffHeap() {
        return true;
    }

    @Override
    public synchronized void close() {
        WordMemory m = memory;
        memory = null;
        if (m != null) {
            m.free();
        }
    }
}
