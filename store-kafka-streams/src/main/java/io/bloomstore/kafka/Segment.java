package io.bloomstore.kafka;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * One time segment of a {@link SegmentedStore}: a keyspace of the store's BloomStore named
 * {@code segment-<start ms>}, holding the entries whose segment time falls in
 * {@code [id × interval, (id + 1) × interval)}, and its buffered writes.
 *
 * <p>Expiry drops the whole segment: its keyspace is dropped, which deletes its tables whole, so
 * no tombstone is ever written for expired data. Readers that still iterate over it hold a
 * reference ({@link #acquire()}), and the drop waits for the last one to {@link #release()}: new
 * readers no longer find the segment.
 *
 * <p>Thread safety: the reference count and the drop are synchronized; the buffer as
 * {@link PendingWrites}.
 */
final class Segment {
    private static final Logger LOG = LoggerFactory.getLogger(Segment.class);

    final long id;
    final Store store;
    final Keyspace keyspace;
    final PendingWrites pending = new PendingWrites();
    private int references;
    private boolean dropped;
    private boolean closed;

    Segment(long id, Store store, Keyspace keyspace) {
        this.id = id;
        this.store = store;
        this.keyspace = keyspace;
    }

    /** The keyspace name of the segment starting at {@code startMs}. */
    static String keyspaceName(long startMs) {
        return "segment-" + startMs;
    }

    /** The start of the segment a keyspace holds, or null when the name is not a segment's. */
    static Long startOf(String keyspaceName) {
        if (!keyspaceName.startsWith("segment-")) {
            return null;
        }
        try {
            return Long.parseLong(keyspaceName.substring("segment-".length()));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    byte[] get(byte[] key) throws IOException {
        return store.get(keyspace, key);
    }

    StoreIterator iterator(byte[] lo, byte[] hi, boolean forward, Snapshot snapshot) {
        ReadOptions at = snapshot == null ? ReadOptions.DEFAULT : ReadOptions.at(snapshot);
        return forward ? store.iterator(keyspace, lo, hi, at) : store.reverseIterator(keyspace, lo, hi, at);
    }

    StoreStats stats() {
        return store.stats(keyspace);
    }

    /** Takes a reference for a reader; false when the segment was dropped (the reader skips it). */
    synchronized boolean acquire() {
        if (dropped || closed) {
            return false;
        }
        references++;
        return true;
    }

    synchronized void release() {
        references--;
        if (dropped && references == 0) {
            destroy();
        }
    }

    /** Expiry: the segment's keyspace is dropped now, or when its last reader releases it. */
    synchronized void drop() {
        dropped = true;
        if (references == 0) {
            destroy();
        }
    }

    /** The store's close: the segment takes no more readers; its keyspace stays. Call with no reader left. */
    synchronized void close() {
        closed = true;
    }

    private void destroy() {
        if (closed) {
            // The store closed first: the next open finds the keyspace expired and drops it.
            return;
        }
        closed = true;
        try {
            store.dropKeyspace(keyspace.name());
        } catch (IOException | RuntimeException e) {
            // As Kafka's segments: the data is expired either way; a later open drops it again.
            LOG.error("Error dropping expired segment {}", keyspace.name(), e);
        }
    }
}
