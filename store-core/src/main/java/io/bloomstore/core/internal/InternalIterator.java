package io.bloomstore.core.internal;

import io.bloomstore.core.table.WholeBlock;
import java.io.Closeable;
import java.io.IOException;

/**
 * A cursor over internal entries (user key, sequence number, type, value) in internal order:
 * user keys ascending as unsigned bytes ({@link java.util.Arrays#compareUnsigned}), and for
 * equal user keys sequence numbers descending (newest first). Memtables, SSTables and the
 * merging iterator above them all implement it.
 *
 * <p>Accessors are valid only while {@link #valid()}; returned arrays must not be modified.
 *
 * <p>Thread safety: not thread-safe; one thread at a time.
 */
public interface InternalIterator extends Closeable {

    boolean valid();

    void seekToFirst() throws IOException;

    void seekToLast() throws IOException;

    /** Positions at the first entry whose user key is ≥ {@code userKey}. */
    void seek(byte[] userKey) throws IOException;

    /** Positions at the last entry whose user key is ≤ {@code userKey}. */
    void seekForPrev(byte[] userKey) throws IOException;

    void next() throws IOException;

    void prev() throws IOException;

    byte[] key();

    long sequence();

    ValueType type();

    /** The value; empty for a deletion. */
    byte[] value();

    /**
     * The value as the slice {@code [valueOffset(), valueOffset() + valueLength())} of this array,
     * valid only until the iterator moves (it may be the source's block), never modified by the
     * caller: a compaction copies values into its output without a copy of each on the heap.
     * A source that holds its values whole returns {@link #value()}.
     */
    default byte[] valueArray() {
        return value();
    }

    /** Where the value starts in {@link #valueArray()}. */
    default int valueOffset() {
        return 0;
    }

    /** The value's length in {@link #valueArray()}; 0 for a deletion. */
    default int valueLength() {
        return value().length;
    }

    /**
     * For a compaction: when positioned at the first entry of a data block read from a table file,
     * that block in its stored form with its entries ({@link WholeBlock}), valid until this
     * iterator moves; null when there is none (other sources, blocks from the cache, mid-block).
     */
    default WholeBlock wholeBlock() {
        return null;
    }

    /** Moves past the block {@link #wholeBlock()} returned, to the first entry after it. */
    default void skipBlock() throws IOException {
        throw new UnsupportedOperationException("no whole block here");
    }

    @Override
    void close() throws IOException;
}
