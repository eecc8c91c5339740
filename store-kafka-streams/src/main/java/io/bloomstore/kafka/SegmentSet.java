package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
import org.apache.kafka.streams.errors.ProcessorStateException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The live time segments of a {@link SegmentedStore}, one keyspace each of the store's BloomStore,
 * named {@code segment-<start ms>}: finds, creates, drops (a whole keyspace) and closes them, and
 * pins the ones a scan walks. What the segments hold and when they expire is the store's
 * business; this class only keeps their life cycle.
 *
 * <p>Thread safety: the segments are in a concurrent map, so readers find them while the stream
 * thread adds and drops them; a reader pins a segment ({@link Segment#acquire()}) so a drop never
 * takes it from under the reader. Creating and dropping are the stream thread's (the store
 * serializes them).
 */
final class SegmentSet {
    private final String storeName;
    private final Store store;
    private final long interval;
    private final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();

    SegmentSet(String storeName, Store store, long interval) {
        this.storeName = storeName;
        this.store = store;
        this.interval = interval;
    }

    /** Finds the segment keyspaces of the store and drops those before {@code minLive}. */
    void openExisting(long minLive) throws IOException {
        for (String name : store.keyspaces()) {
            Long start = Segment.startOf(name);
            if (start == null) {
                continue;
            }
            long id = Math.floorDiv(start, interval);
            if (id * interval != start) {
                throw new IllegalStateException("segment " + name + " of " + storeName + " does not start at a multiple"
                        + " of the segment interval " + interval + " ms: was the store's retention period changed?");
            }
            Segment s = new Segment(id, store, store.keyspace(name));
            if (id < minLive) {
                s.drop();
            } else {
                segments.put(id, s);
            }
        }
    }

    /** The live segment {@code id}, or null. */
    Segment get(long id) {
        return segments.get(id);
    }

    /** The live segment {@code id}, its keyspace made when new. */
    Segment getOrCreate(long id) {
        Segment s = segments.get(id);
        if (s != null) {
            return s;
        }
        String name = Segment.keyspaceName(id * interval);
        try {
            s = new Segment(id, store, store.keyspace(name));
        } catch (IOException e) {
            throw new ProcessorStateException("Error making segment " + name + " of BloomStore " + storeName, e);
        }
        segments.put(id, s);
        return s;
    }

    /** Drops every segment before {@code minLive}: its keyspace goes, now or when its last reader leaves. */
    void dropBefore(long minLive) {
        for (Segment s : List.copyOf(segments.headMap(minLive, false).values())) {
            segments.remove(s.id);
            s.drop();
        }
    }

    /** Pins the live segments {@code fromId..toId} (inclusive), in scan order; the caller releases them. */
    List<Segment> pin(long fromId, long toId, boolean forward) {
        List<Segment> pinned = new ArrayList<>();
        if (fromId > toId) {
            return pinned;
        }
        NavigableMap<Long, Segment> range = segments.subMap(fromId, true, toId, true);
        for (Segment s : (forward ? range : range.descendingMap()).values()) {
            if (s.acquire()) {
                pinned.add(s);
            }
        }
        return pinned;
    }

    /** The live segments, oldest first (a weakly consistent view). */
    Collection<Segment> all() {
        return segments.values();
    }

    /** The buffered bytes of every segment. */
    long pendingBytes() {
        long sum = 0;
        for (Segment s : segments.values()) {
            sum += s.pending.bytes();
        }
        return sum;
    }

    boolean pendingIsEmpty() {
        for (Segment s : segments.values()) {
            if (!s.pending.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The statistics of each live segment's BloomStore, oldest first. */
    List<StoreStats> stats() {
        List<StoreStats> out = new ArrayList<>();
        for (Segment s : segments.values()) {
            if (s.acquire()) {
                try {
                    out.add(s.stats());
                } finally {
                    s.release();
                }
            }
        }
        return out;
    }

    List<Long> ids() {
        return List.copyOf(segments.keySet());
    }

    /** Closes every segment (they take no more readers), keeping its keyspace. */
    void closeAll() {
        for (Segment s : segments.values()) {
            s.close();
        }
        segments.clear();
    }
}
