package io.bloomstore.core.compaction;

import java.io.IOException;

/**
 * A {@link CompactionJob} stopped because the store is closing: not a failure. The job has
 * abandoned its unfinished table; the caller deletes the finished ones (nothing reached the
 * MANIFEST).
 *
 * <p>Thread safety: immutable.
 */
public final class CompactionCancelledException extends IOException {
    private static final long serialVersionUID = 1L;

    public CompactionCancelledException(String message) {
        super(message);
    }
}
