package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One time segment of a {@link SegmentedStore}: a BloomStore of its own in
 * {@code <store dir>/segment-<start ms>}, holding the entries whose segment time falls in
 * {@code [id × interval, (id + 1) × interval)}, and its buffered writes.
 *
 * <p>Expiry drops the whole segment: its BloomStore is closed and its directory deleted, so no
 * tombstone is ever written for expired data. Readers that still iterate over it hold a reference
 * ({@link #acquire()}), and the drop waits for the last one to {@link #release()}: an iterator
 * never reads a closed BloomStore, and new readers no longer find the segment.
 *
 * <p>Thread safety: the reference count and the drop are synchronized; the buffer as
 * {@link PendingWrites}.
 */
final class Segment {
    private static final Logger LOG = LoggerFactory.getLogger(Segment.class);

    final long id;
    final Path dir;
    final Store store;
    final PendingWrites pending = new PendingWrites();
    private int references;
    private boolean dropped;
    private boolean closed;

    Segment(long id, Path dir, Store store) {
        this.id = id;
        this.dir = dir;
        this.store = store;
    }

    /** The directory name of the segment starting at {@code startMs}. */
    static String dirName(long startMs) {
        return "segment-" + startMs;
    }

    /** The start of the segment a directory holds, or null when the name is not a segment's. */
    static Long startOf(String dirName) {
        if (!dirName.startsWith("segment-")) {
            return null;
        }
        try {
            return Long.parseLong(dirName.substring("segment-".length()));
        } catch (NumberFormatException e) {
            return null;
        }
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

    /** Expiry: the segment is destroyed now, or when its last reader releases it. */
    synchronized void drop() {
        dropped = true;
        if (references == 0) {
            destroy();
        }
    }

    /** The store's close: closes the BloomStore, keeping its files. Call with no reader left. */
    synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            store.close();
        }
    }

    private void destroy() {
        try {
            close();
            if (Files.exists(dir)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // As Kafka's segments: the data is expired either way; a later open deletes it again.
            LOG.error("Error deleting expired segment {}", dir, e);
        }
    }
}
