package io.bloomstore.kafka;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.StoreIterator;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One range of a store as its writer sees it: the buffered writes of the range ({@link
 * PendingWrites#snapshot}, taken before the BloomStore iterator opens) merged over a BloomStore
 * iterator of the same range and direction. A buffered write shadows the stored entry of its key,
 * a buffered delete hides it. So a scan needs no write of the buffer first, and uncommitted writes
 * stay out of the BloomStore. Taking the snapshot first keeps the merge complete when a commit
 * runs in between: a write the commit moved from the buffer to the BloomStore is in the snapshot,
 * in the iterator, or in both (the buffered copy wins; they are equal).
 *
 * <p>Returned values are copies of buffered arrays, or the BloomStore's own (new) arrays.
 *
 * <p>Thread safety: not thread-safe; used under its iterator's monitor.
 */
final class BufferMergeCursor {
    private final List<Map.Entry<byte[], byte[]>> buffered;
    private final StoreIterator stored;
    private final boolean forward;
    private int nextBuffered;
    private KeyValue nextStored;

    /** Takes ownership of {@code stored}: {@link #close()} closes it. */
    BufferMergeCursor(List<Map.Entry<byte[], byte[]>> buffered, StoreIterator stored, boolean forward) {
        this.buffered = buffered;
        this.stored = stored;
        this.forward = forward;
    }

    /** The next live entry in the range's order, or null at its end. */
    KeyValue next() {
        while (true) {
            if (nextStored == null && stored.hasNext()) {
                nextStored = stored.next();
            }
            Map.Entry<byte[], byte[]> pending = nextBuffered < buffered.size() ? buffered.get(nextBuffered) : null;
            if (nextStored == null && pending == null) {
                return null;
            }
            int c;
            if (nextStored == null) {
                c = -1;
            } else if (pending == null) {
                c = 1;
            } else {
                c = Arrays.compareUnsigned(pending.getKey(), nextStored.key());
                c = forward ? c : -c;
            }
            if (c > 0) {
                KeyValue out = nextStored;
                nextStored = null;
                return out;
            }
            nextBuffered++;
            if (c == 0) {
                nextStored = null;
            }
            if (pending.getValue() != null) {
                return new KeyValue(pending.getKey(), pending.getValue().clone());
            }
        }
    }

    void close() {
        stored.close();
    }
}
