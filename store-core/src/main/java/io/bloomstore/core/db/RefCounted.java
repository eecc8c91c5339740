package io.bloomstore.core.db;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reference count starting at one, shared by {@link TableHandle} and {@link VersionRef}: once
 * it reaches zero it stays there, {@link #retain()} then fails (the caller moves on to a newer
 * object) and the subclass's {@link #lastReleased()} has run exactly once.
 *
 * <p>Thread safety: safe for concurrent use; {@link #lastReleased()} runs on the thread that
 * dropped the last reference.
 */
abstract class RefCounted {
    private final AtomicInteger refs = new AtomicInteger(1);

    /** Takes a reference; false when the count already reached zero. */
    final boolean retain() {
        while (true) {
            int n = refs.get();
            if (n == 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops a reference; the last one calls {@link #lastReleased()}. */
    final void release() {
        int n = refs.decrementAndGet();
        if (n == 0) {
            lastReleased();
        } else if (n < 0) {
            throw new IllegalStateException(describe() + " released more often than retained");
        }
    }

    /** What to do when the last reference goes. */
    abstract void lastReleased();

    /** Names the object in the error of an unbalanced release, e.g. "table 12". */
    abstract String describe();
}
