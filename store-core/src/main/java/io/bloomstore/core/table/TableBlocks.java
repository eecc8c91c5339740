package io.bloomstore.core.table;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.cache.BlockSlabs;
import io.bloomstore.core.io.CountingReader;
import io.bloomstore.core.stats.StoreCounters;

/**
 * The data blocks of one open table as its readers get them: from the block cache, else read from
 * the file into this thread's direct read buffer, checked and decoded — into the cache, into a
 * reader's {@link ScratchBlock}, or (compaction) into a block nobody caches.
 *
 * <p>Thread safety: safe for concurrent use; each thread reads into its own buffer.
 */
final class TableBlocks {
    /** Large enough for a default block; grown for larger ones. */
    private static final int INITIAL_READ_BUFFER = 16 * 1024;
    /** The largest read buffer a thread keeps; a larger block is read into a one-off buffer. */
    static final int MAX_KEPT_READ_BUFFER = 1 << 20;
    // Thread locals as subclasses, not withInitial lambdas: no lambda class spun at a process's first lookup.
    private static final ThreadLocal<ByteBuffer> READ_BUFFER = new ThreadLocal<>() {
        @Override
        protected ByteBuffer initialValue() {
            return ByteBuffer.allocateDirect(INITIAL_READ_BUFFER);
        }
    };

    private final long fileNumber;
    private final CountingReader reader;
    private final BlockCache cache;
    private final StoreCounters counters;
    private final IndexSource index;
    /** Bytes of the table's data blocks: where a readahead window stops. */
    private final long dataSize;

    TableBlocks(long fileNumber, CountingReader reader, BlockCache cache, StoreCounters counters, IndexSource index,
                long dataSize) {
        this.fileNumber = fileNumber;
        this.reader = reader;
        this.cache = cache;
        this.counters = counters;
        this.index = index;
        this.dataSize = dataSize;
    }

    /** The table's index, decoded on first use ({@link TableReader#index()}). */
    @FunctionalInterface
    interface IndexSource {
        TableIndex get() throws IOException;
    }

    /**
     * Data block {@code b} for a reader: from the block cache (a counted hit), else one counted
     * read, decoded (into {@code scratch} when not null) and cached in a slab of the cache — or,
     * with a {@code scratch} and a block the doorkeeper does not admit, left in {@code scratch}.
     */
    Block readerBlock(int b, ScratchBlock scratch) throws IOException {
        return readerBlock(index.get().handle(b), scratch);
    }

    /** As {@link #readerBlock(int, ScratchBlock)}, for the block at {@code h}. */
    Block readerBlock(BlockHandle h, ScratchBlock scratch) throws IOException {
        Block block = (Block) cache.get(fileNumber, h.offset());
        if (block != null) {
            counters.blockCacheHits().increment();
            return block;
        }
        if (cache.enabled()) {
            counters.blockCacheMisses().increment();
        }
        ByteBuffer stored = readBuffer((int) h.storedSize());
        reader.readDataBlock(h.offset(), stored);
        stored.flip();
        // One decode call site for both outcomes: the JIT inlines a copy of the decoder (checksum,
        // decompression) per site into every compiled lookup.
        // Decoded into the reader's scratch when it has one, whether the block is cached or not: a
        // cached block's bytes are then copied to a slab of the cache. One decode call site for both
        // outcomes: the JIT inlines a copy of the decoder (checksum, decompression) per site into
        // every compiled lookup.
        boolean cacheIt = scratch == null || cache.admit(fileNumber, h.offset());
        byte[] data = BlockCodec.decode(stored, reader.name(), h.offset(), scratch);
        block = scratch != null ? new Block(data, scratch.length(), reader.name(), h.offset())
                : new Block(data, reader.name(), h.offset());
        if (!cacheIt || !cache.enabled()) {
            return block;
        }
        BlockSlabs.Space space = cache.allocate(block.length);
        if (space != null) {
            block = block.movedTo(space.array(), space.offset());
        } else if (scratch != null) {
            block = block.movedTo(new byte[block.length], 0);
        }
        cache.put(fileNumber, h.offset(), block, space);
        return block;
    }

    /**
     * Data block {@code b} for a sequential background pass (compaction): from the block cache
     * if it is there (not filling it, not counted with lookups' reads), else read through
     * {@code readahead} (or, when null or the block is larger than its window, read alone). A
     * block read from the file is also kept in its stored form in {@code whole} (when not null;
     * cleared when the block came from the cache), and decoded into {@code scratch} (when not
     * null; else into a new array): a compaction reads every block of its inputs once, so
     * decoding each into an array of its own made most of a writing store's garbage.
     */
    Block backgroundBlock(int b, Readahead readahead, WholeBlock whole, ScratchBlock scratch) throws IOException {
        BlockHandle h = index.get().handle(b);
        Block block = (Block) cache.get(fileNumber, h.offset());
        if (block != null) {
            if (whole != null) {
                whole.clear();
            }
            return block;
        }
        int size = (int) h.storedSize();
        ByteBuffer stored = readahead == null ? null : readahead.block(reader, h.offset(), size, dataSize);
        if (stored == null) {
            stored = readBuffer(size);
            reader.readBackgroundBlock(h.offset(), stored);
            stored.flip();
        }
        if (whole != null) {
            whole.clear();
            whole.capture(stored);
        }
        if (scratch != null) {
            byte[] data = BlockCodec.decode(stored, reader.name(), h.offset(), scratch);
            return new Block(data, scratch.length(), reader.name(), h.offset());
        }
        return new Block(BlockCodec.decode(stored, reader.name(), h.offset()), reader.name(), h.offset());
    }

    /**
     * This thread's read buffer, cleared and limited to {@code length} bytes. Direct, so the
     * file system reads into it without copying through a temporary buffer of its own, and
     * reused, so a cache miss allocates only the decoded block. It is capped at
     * {@link #MAX_KEPT_READ_BUFFER}: a block larger than that (a huge value) is read into a one-off
     * heap buffer, freed by the next collection, so a thread that once read a 32 MiB value does not
     * hold 64 MiB of native memory for its life.
     */
    private static ByteBuffer readBuffer(int length) {
        if (length > MAX_KEPT_READ_BUFFER) {
            return ByteBuffer.allocate(length);
        }
        ByteBuffer b = READ_BUFFER.get();
        if (b.capacity() < length) {
            b = ByteBuffer.allocateDirect(Math.min(MAX_KEPT_READ_BUFFER, Math.max(length, 2 * b.capacity())));
            READ_BUFFER.set(b);
        }
        return b.clear().limit(length);
    }

    /** The capacity of the read buffer this thread keeps (for tests of the cap). */
    static int keptReadBufferCapacity() {
        return READ_BUFFER.get().capacity();
    }
}
