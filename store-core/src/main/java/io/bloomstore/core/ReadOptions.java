package io.bloomstore.core;

/**
 * How a read sees the store: at a {@link Snapshot}, or (snapshot null, {@link #DEFAULT}) at the
 * latest state when the read or iterator starts.
 *
 * <p>Thread safety: immutable.
 */
public record ReadOptions(Snapshot snapshot) {
    public static final ReadOptions DEFAULT = new ReadOptions(null);

    public static ReadOptions at(Snapshot snapshot) {
        if (snapshot == null) {
            throw new IllegalArgumentException("snapshot must not be null (use ReadOptions.DEFAULT)");
        }
        return new ReadOptions(snapshot);
    }
}
