package io.bloomstore.core.db;

import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.table.WholeBlock;
import java.io.IOException;
import java.util.Arrays;

/**
 * A merged stream cut off before user key {@code to} (exclusive), for a subcompaction's range: the
 * entries of later keys, and any whole block reaching them, belong to the next range.
 *
 * <p>Thread safety: not thread-safe, as the merger it wraps.
 */
final class BoundedMerger implements CompactionJob.Merger {
    private final CompactionJob.Merger in;
    private final byte[] to;

    BoundedMerger(CompactionJob.Merger in, byte[] to) {
        this.in = in;
        this.to = to;
    }

    @Override
    public boolean valid() {
        return in.valid() && (to == null || Arrays.compareUnsigned(in.current().key(), to) < 0);
    }

    @Override
    public InternalIterator current() {
        return in.current();
    }

    @Override
    public void advance() throws IOException {
        in.advance();
    }

    @Override
    public WholeBlock wholeBlock() {
        WholeBlock w = in.wholeBlock();
        return w != null && (to == null || w.endsBefore(to)) ? w : null;
    }

    @Override
    public void skipBlock() throws IOException {
        in.skipBlock();
    }
}
