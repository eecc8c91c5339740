package io.bloomstore.core.db;

import io.bloomstore.core.Snapshot;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A snapshot: a sequence number, registered with its store while open so that the store knows
 * the oldest version a reader may still need.
 *
 * <p>Thread safety: safe to share.
 */
final class SnapshotImpl implements Snapshot {
    private final long sequence;
    private final Set<SnapshotImpl> live;
    private final AtomicBoolean closed = new AtomicBoolean();

    SnapshotImpl(long sequence, Set<SnapshotImpl> live) {
        this.sequence = sequence;
        this.live = live;
        live.add(this);
    }

    @Override
    public long sequence() {
        if (closed.get()) {
            throw new IllegalStateException("snapshot is closed");
        }
        return sequence;
    }

    /** The sequence, also after close (a compaction reading the live set may race with a close). */
    long pinnedSequence() {
        return sequence;
    }

    /** Whether this snapshot was taken of the store whose live snapshots are {@code live}. */
    boolean of(Set<SnapshotImpl> live) {
        return this.live == live;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            live.remove(this);
        }
    }

    @Override
    public String toString() {
        return "Snapshot@" + sequence;
    }
}
