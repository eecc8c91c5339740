package io.bloomstore.core.db;

import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.table.WholeBlock;
import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Merges several {@link InternalIterator}s (memtables and tables) into one stream in internal
 * order — forward, or reverse — with a binary heap holding each source at its current entry.
 * Advancing moves the top source and sifts it down once (a heap's "replace top"), instead of
 * removing and re-inserting it, which costs two sifts: in a compaction, where one source often
 * supplies many entries in a row, that halves the comparisons. Each instance moves in one
 * direction only, which is all the store's iterators and compactions need.
 *
 * <p>Thread safety: not thread-safe.
 */
final class MergingIterator implements CompactionJob.Merger {
    /** Internal order: user key ascending (unsigned), then sequence descending. */
    static final Comparator<InternalIterator> FORWARD = new Forward();

    private final InternalIterator[] heap;
    private final Comparator<InternalIterator> order;
    private final boolean reverse;
    private int size;

    private MergingIterator(List<InternalIterator> sources, boolean reverse) {
        this.reverse = reverse;
        this.order = reverse ? FORWARD.reversed() : FORWARD;
        this.heap = new InternalIterator[Math.max(1, sources.size())];
    }

    /**
     * {@link #FORWARD}'s order. A class, not a lambda: a one-shot {@code scan} is the first to use it,
     * and the process's first lambda costs it some 10 ms.
     */
    private static final class Forward implements Comparator<InternalIterator> {
        @Override
        public int compare(InternalIterator a, InternalIterator b) {
            int c = Arrays.compareUnsigned(a.key(), b.key());
            return c != 0 ? c : Long.compare(b.sequence(), a.sequence());
        }
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
            heap[size] = it;
            siftUp(size++);
        }
    }

    @Override
    public boolean valid() {
        return size > 0;
    }

    /** The source positioned at the current entry. */
    @Override
    public InternalIterator current() {
        return heap[0];
    }

    /** Moves to the next entry in this iterator's direction. */
    @Override
    public void advance() throws IOException {
        InternalIterator top = heap[0];
        if (reverse) {
            top.prev();
        } else {
            top.next();
        }
        if (!top.valid()) {
            heap[0] = heap[--size];
            heap[size] = null;
        }
        if (size > 1) {
            siftDown(0);
        }
    }

    @Override
    public WholeBlock wholeBlock() {
        if (reverse || size == 0) {
            return null;
        }
        WholeBlock whole = heap[0].wholeBlock();
        if (whole == null) {
            return null;
        }
        // The smallest of the other sources is one of the top's two children in the heap.
        for (int i = 1; i <= 2 && i < size; i++) {
            if (!whole.endsBefore(heap[i].key())) {
                return null;
            }
        }
        return whole;
    }

    @Override
    public void skipBlock() throws IOException {
        InternalIterator top = heap[0];
        top.skipBlock();
        if (!top.valid()) {
            heap[0] = heap[--size];
            heap[size] = null;
        }
        if (size > 1) {
            siftDown(0);
        }
    }

    private void siftUp(int i) {
        InternalIterator x = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (order.compare(x, heap[parent]) >= 0) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = x;
    }

    private void siftDown(int i) {
        InternalIterator x = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && order.compare(heap[right], heap[child]) < 0) {
                child = right;
            }
            if (order.compare(x, heap[child]) <= 0) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = x;
    }
}
