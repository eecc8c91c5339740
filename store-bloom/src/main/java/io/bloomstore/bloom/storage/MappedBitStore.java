package io.bloomstore.bloom.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * A {@link BitStore} over a region of a memory-mapped file, through Chronicle Bytes. The
 * whole file is mapped once; words are read and written in place, so opening a filter of
 * any size copies nothing onto the Java heap. {@link #close()} releases the mapping at once
 * (Chronicle's reference counting), so a deleted file is really unmapped.
 *
 * <p>Thread safety: as {@link BitStore}. A read-only store rejects writes.
 */
public final class MappedBitStore implements BitStore {
    private static final AtomicLong OPEN_MAPPINGS = new AtomicLong();
    private static final AtomicLong MAPPED_BYTES = new AtomicLong();

    private final ReferenceOwner owner = ReferenceOwner.temporary("MappedBitStore");
    private final Path path;
    private final long baseOffset;
    private final long wordCount;
    private final long mappedLength;
    private final boolean readOnly;
    private MappedFile file;
    private MappedBytesStore store;

    private MappedBitStore(Path path, long baseOffset, long wordCount, boolean readOnly) throws IOException {
        this.path = path;
        this.baseOffset = baseOffset;
        this.wordCount = wordCount;
        this.readOnly = readOnly;
        long length = baseOffset + wordCount * Long.BYTES;
        this.mappedLength = length;
        this.file = MappedFile.ofSingle(path.toFile(), Math.max(4096, length), readOnly);
        try {
            this.store = file.acquireByteStore(owner, 0);
        } catch (RuntimeException | IOException e) {
            file.releaseLast();
            throw e;
        }
        OPEN_MAPPINGS.incrementAndGet();
        MAPPED_BYTES.addAndGet(length);
    }

    /**
     * Maps {@code wordCount} words starting at byte {@code offset} of an existing file.
     * REQUIRES: the file holds at least {@code offset + wordCount * 8} bytes.
     */
    public static MappedBitStore open(Path path, long offset, long wordCount, boolean readOnly) throws IOException {
        if (offset < 0 || wordCount < 0) {
            throw new IllegalArgumentException("negative offset or size");
        }
        return new MappedBitStore(path, offset, wordCount, readOnly);
    }

    /** Number of {@link MappedBitStore}s open in this JVM (for tests and statistics). */
    public static long openMappings() {
        return OPEN_MAPPINGS.get();
    }

    /** Bytes of files mapped by open {@link MappedBitStore}s in this JVM. */
    public static long mappedBytes() {
        return MAPPED_BYTES.get();
    }

    public Path path() {
        return path;
    }

    @Override
    public long wordCount() {
        return wordCount;
    }

    @Override
    public long getWord(long wordIndex) {
        return store.readLong(baseOffset + (wordIndex << 3));
    }

    @Override
    public void setWord(long wordIndex, long value) {
        if (readOnly) {
            throw new IllegalStateException("filter mapping of " + path + " is read-only");
        }
        store.writeLong(baseOffset + (wordIndex << 3), value);
    }

    @Override
    public boolean isOffHeap() {
        return true;
    }

    /** Forces written words to the storage device. */
    public void sync() {
        if (!readOnly) {
            store.syncUpTo(mappedLength);
        }
    }

    @Override
    public synchronized void close() {
        if (file == null) {
            return;
        }
        try {
            store.release(owner);
            file.releaseLast();
        } catch (RuntimeException e) {
            throw new UncheckedIOException(new IOException("cannot unmap " + path, e));
        } finally {
            store = null;
            file = null;
            OPEN_MAPPINGS.decrementAndGet();
            MAPPED_BYTES.addAndGet(-mappedLength);
        }
    }
}
