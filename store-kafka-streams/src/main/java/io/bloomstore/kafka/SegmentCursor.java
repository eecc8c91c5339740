package io.bloomstore.kafka;

import io.bloomstore.core.KeyValue;

import java.util.List;
import java.util.Map;

/**
 * Walks the pinned segments of a {@link SegmentedStore} scan in order: in each, a {@link
 * BufferMergeCursor} merges the segment's buffered writes of the range (a snapshot taken when the
 * cursor reaches the segment) over one BloomStore iterator, or, for a {@code READ_COMMITTED} view,
 * reads the BloomStore alone — then every segment at one snapshot of the BloomStore, taken when the
 * cursor is made: a commit is one batch across the segments, so such a scan sees all of a commit
 * or none of it. Releases the segments and the snapshot at {@link #close()}.
 *
 * <p>Thread safety: not thread-safe; used under its {@link GuardedIterator}'s monitor.
 */
final class SegmentCursor {
    private final List<Segment> pinned;
    private final boolean forward;
    private final byte[] lo;
    private final byte[] hi;
    private final boolean committed;
    /** The snapshot every segment is read at (committed views); null to read each as the cursor reaches it. */
    private final io.bloomstore.core.Snapshot snapshot;
    private int nextSegment;
    private BufferMergeCursor current;

    /** Takes over the references of {@code pinned} (acquired by the caller) and {@code snapshot}. */
    SegmentCursor(List<Segment> pinned, io.bloomstore.core.Snapshot snapshot, boolean forward, byte[] lo, byte[] hi,
                  boolean committed) {
        this.pinned = pinned;
        this.snapshot = snapshot;
        this.forward = forward;
        this.lo = lo;
        this.hi = hi;
        this.committed = committed;
    }

    /** The next entry, or null after the last segment. */
    KeyValue next() {
        while (true) {
            if (current == null) {
                if (nextSegment >= pinned.size()) {
                    return null;
                }
                Segment s = pinned.get(nextSegment++);
                List<Map.Entry<byte[], byte[]>> buffered = committed ? List.of() : s.pending.snapshot(lo, hi, forward);
                current = new BufferMergeCursor(buffered,
                        s.iterator(lo, hi, forward, snapshot), forward);
            }
            KeyValue kv = current.next();
            if (kv != null) {
                return kv;
            }
            current.close();
            current = null;
        }
    }

    void close() {
        if (current != null) {
            current.close();
            current = null;
        }
        for (Segment s : pinned) {
            s.release();
        }
        pinned.clear();
        if (snapshot != null) {
            snapshot.close();
        }
    }
}
