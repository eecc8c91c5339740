package io.bloomstore.core;

/**
 * A consistent point-in-time view of a store: reads through {@link ReadOptions#at(Snapshot)} see
 * exactly the writes acknowledged before {@link Store#snapshot()} returned. Close it when done so
 * the store can drop old versions (once compaction does so); using a closed snapshot is an
 * {@link IllegalStateException}.
 *
 * <p>Thread safety: safe to share between threads.
 */
public interface Snapshot extends AutoCloseable {

    /** The sequence number of the last write the snapshot sees. */
    long sequence();

    @Override
    void close();
}
