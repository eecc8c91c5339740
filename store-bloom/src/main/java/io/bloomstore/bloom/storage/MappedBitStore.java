package io.bloomstore.bloom.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A read-only {@link BitStore} over a region of a memory-mapped file. Words are read in place,
 * so opening a filter of any size copies nothing onto the Java heap. The mapping holds no file
 * descriptor once made, and {@link #close()} unmaps it at once, so a deleted file is really
 * unmapped. The mapping comes from an {@link OffHeapBackend}: {@link OffHeapBackend#active()}
 * unless one is named.
 *
 * <p>Thread safety: as {@link BitStore}. Writes are rejected.
 */
public final class MappedBitStore implements BitStore {
    private static final AtomicLong OPEN_MAPPINGS = new AtomicLong();
    private static final AtomicLong MAPPED_BYTES = new AtomicLong();
    /** The open ones, for {@link #openMappingPaths()}: one entry per mapped filter, not per probe. */
    private static final Set<MappedBitStore> OPEN = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final long wordCount;
    private final OffHeapBackend backend;
    private WordMemory memory;

    private MappedBitStore(Path path, long wordCount, OffHeapBackend backend, WordMemory memory) {
        this.path = path;
        this.wordCount = wordCount;
        this.backend = backend;
        this.memory = memory;
        OPEN_MAPPINGS.incrementAndGet();
        MAPPED_BYTES.addAndGet(byteSize());
        OPEN.add(this);
    }

    /**
     * Maps {@code wordCount} words starting at byte {@code offset} of an existing file, through
     * the JVM's {@link OffHeapBackend#active() active} backend.
     * REQUIRES: the file holds at least {@code offset + wordCount * 8} bytes.
     */
    public static MappedBitStore open(Path path, long offset, long wordCount) throws IOException {
        return open(path, offset, wordCount, OffHeapBackend.active());
    }

    /** As {@link #open(Path, long, long)}, through the given backend (benchmarks compare them). */
    public static MappedBitStore open(Path path, long offset, long wordCount, OffHeapBackend backend)
            throws IOException {
        if (offset < 0 || wordCount < 0) {
            throw new IllegalArgumentException("negative offset or size");
        }
        return new MappedBitStore(path, wordCount, backend, backend.map(path, offset, wordCount * Long.BYTES));
    }

    /** Number of {@link MappedBitStore}s open in this JVM (for tests and statistics). */
    public static long openMappings() {
        return OPEN_MAPPINGS.get();
    }

    /** The files of the {@link MappedBitStore}s open in this JVM, one entry per mapping (for tests' messages). */
    public static List<Path> openMappingPaths() {
        List<Path> paths = new ArrayList<>();
        for (MappedBitStore m : OPEN) {
            paths.add(m.path);
        }
        return paths;
    }

    /** Bytes of files mapped by open {@link MappedBitStore}s in this JVM. */
    public static long mappedBytes() {
        return MAPPED_BYTES.get();
    }

    public Path path() {
        return path;
    }

    public OffHeapBackend backend() {
        return backend;
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
        throw new IllegalStateException("filter mapping of " + path + " is read-only");
    }

    @Override
    public boolean isOffHeap() {
        return true;
    }

    @Override
    public synchronized void close() {
        WordMemory m = memory;
        if (m == null) {
            return;
        }
        memory = null;
        OPEN_MAPPINGS.decrementAndGet();
        MAPPED_BYTES.addAndGet(-byteSize());
        OPEN.remove(this);
        m.free();
    }
}
