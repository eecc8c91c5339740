package io.bloomstore.bloom.storage;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * A {@link BitStore} in native (off-heap) memory allocated through Chronicle Bytes. The
 * memory is zeroed on allocation and freed by {@link #close()}, not by the garbage collector.
 *
 * <p>Thread safety: as {@link BitStore}.
 */
public final class NativeBitStore implements BitStore {
    private final long wordCount;
    private BytesStore<?, Void> memory;

    public NativeBitStore(long wordCount) {
        if (wordCount < 0) {
            throw new IllegalArgumentException("negative word count: " + wordCount);
        }
        this.wordCount = wordCount;
        long bytes = Math.max(Long.BYTES, wordCount * Long.BYTES);
        this.memory = BytesStore.nativeStoreWithFixedCapacity(bytes);
        memory.zeroOut(0, bytes);
    }

    @Override
    public long wordCount() {
        return wordCount;
    }

    @Override
    public long getWord(long wordIndex) {
        return memory.readLong(wordIndex << 3);
    }

    @Override
    public void setWord(long wordIndex, long value) {
        memory.writeLong(wordIndex << 3, value);
    }

    @Override
    public boolean isOffHeap() {
        return true;
    }

    @Override
    public synchronized void close() {
        if (memory != null) {
            memory.releaseLast();
            memory = null;
        }
    }
}
