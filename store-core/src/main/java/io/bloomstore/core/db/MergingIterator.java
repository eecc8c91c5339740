package io.bloomstore.core.db;

import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.internal.InternalIterator;
import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Merges several {@link InternalIterator}s (memtables and tables) into one stream in internal
 * order — forward, or reverse — with a heap holding each source at its current entry. Each
 * instance moves in one direction only, which is all the store's iterators and compactions need.
 *
 * <p>Thread safety: not thread-safe.
 */
final class MergingIterator implements CompactionJob.Merger {
    /** Internal order: user key ascending (unsigned), then sequence descending. */
    static final Comparator<InternalIterator> FORWARD = (a, b) -> {
        int c = Arrays.compareUnsigned(a.key(), b.key());
        return c != 0 ? c : Long.compare(b.sequence(), a.sequence());
    };

    private final PriorityQueue<InternalIterator> heap;
    private final boolean reverse;

    private MergingIterator(List<InternalIterator> sources, boolean reverse) {
        this.reverse = reverse;
        this.heap = new PriorityQueue<>(Math.max(1, sources.size()), reverse ? FORWARD.reversed() : FORWARD);
    }

    /** Positioned at the first entry with user key ≥ {@code from} (all entries when null). */
    static MergingIterator forward(List<InternalIterator> sources, byte[] from) throws IOException {
        MergingIterator m = new MergingIterator(sources, false);
        for (InternalIterator it : sources) {
            if (from == null) {
                it.seekToFirst();
            } else {
                it.seek(from);
            }
            m.offer(it);
        }
        return m;
    }

    /** Positioned at the last entry with user key ≤ {@code to} (all entries when null). */
    static MergingIterator reverse(List<InternalIterator> sources, byte[] to) throws IOException {
        MergingIterator m = new MergingIterator(sources, true);
        for (InternalIterator it : sources) {
            if (to == null) {
                it.seekToLast();
            } else {
                it.seekForPrev(to);
            }
            m.offer(it);
        }
        return m;
    }

    private void offer(InternalIterator it) {
        if (it.valid()) {
            heap.add(it);
        }
    }

    @Override
    public boolean valid() {
        return !heap.isEmpty();
    }

    /** The source positioned at the current entry. */
    @Override
    public InternalIterator current() {
        return heap.peek();
    }

    /** Moves to the next entry in this iterator's direction. */
    @Override
    public void advance() throws IOException {
        InternalIterator top = heap.poll();
        if (reverse) {
            top.prev();
        } else {
            top.next();
        }
        offer(top);
    }
}
