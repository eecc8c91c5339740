package io.bloomstore.core.db;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * WAL segments that a checkpoint or backup is copying, kept from obsolete-file deletion
 * ({@link ObsoleteFiles}) until it is done: each pin keeps every segment numbered at or above its
 * floor. Tables need no pin here: a copy holds a reference on its version's tables, which keeps
 * their files on disk ({@link VersionRef}).
 *
 * <p>Thread safety: safe for concurrent use. A pin taken under the store mutex is seen by every
 * choice of obsolete files that starts after the mutex is released.
 */
final class FilePins {
    private final Map<Long, Long> floors = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();

    /** Keeps WAL segments numbered {@code floor} and above; returns the token that {@link #unpin} takes. */
    long pinWal(long floor) {
        long token = tokens.incrementAndGet();
        floors.put(token, floor);
        return token;
    }

    void unpin(long token) {
        floors.remove(token);
    }

    /** The lowest pinned WAL number, or {@link Long#MAX_VALUE} when nothing is pinned. */
    long walFloor() {
        long min = Long.MAX_VALUE;
        for (long f : floors.values()) {
            min = Math.min(min, f);
        }
        return min;
    }
}
