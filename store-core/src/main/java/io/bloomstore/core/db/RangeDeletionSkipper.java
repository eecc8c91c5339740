package io.bloomstore.core.db;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.io.IOException;
import java.util.Arrays;

/**
 * One source of a user iterator (a memtable, a table, a level) with the entries a range tombstone
 * deletes for the iterator's reader left out: an entry at sequence q under a fragment with a
 * tombstone T, q &lt; T ≤ snapshot, is skipped. Coverage only grows towards older versions, so
 * leaving out a source's covered entries one by one gives the same merged answer as deciding per
 * key. Where every entry the source can hold is older than the fragment's visible tombstone
 * ({@code newestSequence} &lt; T: a table written before the deletion), the source is moved past
 * the whole fragment with one seek rather than stepped through it — so a scan over a range just
 * deleted costs a seek per table, not a step per deleted key (RocksDB's range-tombstone-aware
 * merging iterator does the same per level).
 *
 * <p>Thread safety: not thread-safe, as any {@link InternalIterator}.
 */
final class RangeDeletionSkipper implements InternalIterator {
    private final InternalIterator in;
    private final RangeTombstones tombstones;
    private final long snapshot;
    private final long newestSequence;
    /** The scan's bounds (null: open): a seek past them need not position the source at all. */
    private final byte[] from;
    private final byte[] to;
    /** Positioned past the scan's bounds without moving the source: not {@link #valid()}. */
    private boolean beyond;

    private RangeDeletionSkipper(InternalIterator in, RangeTombstones tombstones, long snapshot, long newestSequence,
                                 byte[] from, byte[] to) {
        this.in = in;
        this.tombstones = tombstones;
        this.snapshot = snapshot;
        this.newestSequence = newestSequence;
        this.from = from;
        this.to = to;
    }

    /**
     * {@code in} itself when no tombstone applies, else {@code in} skipping what the tombstones a
     * reader at {@code snapshot} sees delete; {@code newestSequence} bounds every sequence number
     * {@code in} holds ({@link Long#MAX_VALUE} when unknown: a memtable).
     */
    static InternalIterator wrap(InternalIterator in, RangeTombstones tombstones, long snapshot, long newestSequence,
                                 byte[] from, byte[] to) {
        return tombstones.isEmpty() ? in : new RangeDeletionSkipper(in, tombstones, snapshot, newestSequence, from, to);
    }

    private void skipForward() throws IOException {
        while (in.valid()) {
            int i = tombstones.fragmentIndex(in.key());
            if (i < 0) {
                return;
            }
            long t = tombstones.newestVisible(i, snapshot);
            if (t <= in.sequence()) {
                return;
            }
            if (newestSequence < t) {
                in.seek(tombstones.fragmentEnd(i));
            } else {
                in.next();
            }
        }
    }

    private void skipBackward() throws IOException {
        while (in.valid()) {
            int i = tombstones.fragmentIndex(in.key());
            if (i < 0) {
                return;
            }
            long t = tombstones.newestVisible(i, snapshot);
            if (t <= in.sequence()) {
                return;
            }
            if (newestSequence < t) {
                byte[] start = tombstones.fragmentStart(i);
                in.seekForPrev(start);
                while (in.valid() && Arrays.equals(in.key(), start)) {
                    in.prev();
                }
            } else {
                in.prev();
            }
        }
    }

    @Override
    public boolean valid() {
        return !beyond && in.valid();
    }

    @Override
    public void seekToFirst() throws IOException {
        beyond = false;
        in.seekToFirst();
        skipForward();
    }

    @Override
    public void seekToLast() throws IOException {
        beyond = false;
        in.seekToLast();
        skipBackward();
    }

    /**
     * Seeks past the deleted range at once when {@code userKey} lies in one this source holds
     * nothing visible in: no block is read at {@code userKey} only to be skipped.
     */
    @Override
    public void seek(byte[] userKey) throws IOException {
        byte[] target = userKey;
        for (int i = tombstones.fragmentIndex(target); i >= 0 && newestSequence < tombstones.newestVisible(i, snapshot);
             i = tombstones.fragmentIndex(target)) {
            target = tombstones.fragmentEnd(i);
        }
        // A scan ending where the deleted range ends (a scan of what was just deleted) reads nothing.
        beyond = target != userKey && to != null && Arrays.compareUnsigned(target, to) >= 0;
        if (!beyond) {
            in.seek(target);
            skipForward();
        }
    }

    @Override
    public void seekForPrev(byte[] userKey) throws IOException {
        beyond = false;
        int i = tombstones.fragmentIndex(userKey);
        if (i >= 0 && newestSequence < tombstones.newestVisible(i, snapshot)) {
            // Everything this source holds from the fragment's start to userKey is deleted.
            byte[] start = tombstones.fragmentStart(i);
            if (from != null && Arrays.compareUnsigned(start, from) <= 0) {
                beyond = true;
                return;
            }
            in.seekForPrev(start);
            while (in.valid() && Arrays.equals(in.key(), start)) {
                in.prev();
            }
        } else {
            in.seekForPrev(userKey);
        }
        skipBackward();
    }

    @Override
    public void next() throws IOException {
        in.next();
        skipForward();
    }

    @Override
    public void prev() throws IOException {
        in.prev();
        skipBackward();
    }

    @Override
    public byte[] key() {
        return in.key();
    }

    @Override
    public long sequence() {
        return in.sequence();
    }

    @Override
    public ValueType type() {
        return in.type();
    }

    @Override
    public byte[] value() {
        return in.value();
    }

    @Override
    public byte[] valueArray() {
        return in.valueArray();
    }

    @Override
    public int valueOffset() {
        return in.valueOffset();
    }

    @Override
    public int valueLength() {
        return in.valueLength();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
