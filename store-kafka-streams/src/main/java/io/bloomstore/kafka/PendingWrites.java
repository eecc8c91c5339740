package io.bloomstore.kafka;

import io.bloomstore.core.WriteBatch;
import org.apache.kafka.common.utils.Bytes;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The writes a {@link BloomKeyValueStore} (or one time segment of a {@link SegmentedStore}) has
 * taken since its last commit: the latest value (or delete) per stored key. In transactional mode
 * ({@link CommitMode}) they reach the BloomStore only at a commit, as one {@link WriteBatch} with the
 * changelog offsets and the IQ position; before that no byte of them is on disk, so a crash loses
 * exactly the uncommitted writes. Reads of the stream thread look here first: {@link #lookup} for a
 * key, {@link #snapshot} to merge a range with the BloomStore's entries ({@link BufferMergeCursor}).
 *
 * <p>Arrays: the key array is taken over (callers build it fresh); the value array is kept as Kafka hands it over (Kafka never
 * modifies it afterwards), and {@link #lookup} returns a copy.
 *
 * <p>Point lookups use a hash map: a key that is not buffered costs one hash probe, not a search
 * of a sorted map whose every step compares byte arrays. From the first {@link #snapshot} on, the
 * same entries are also kept in a sorted map (unsigned lexicographic, the stores' order): a buffer
 * that is never scanned (a dedup's or a count's store: gets and puts only) never pays for one.
 *
 * <p>Thread safety: one writer at a time (the store serializes its writes); {@link #lookup} and
 * {@link #snapshot} may run concurrently from interactive-query threads and see either the
 * buffered or the stored value. Until the sorted map exists, the writer's changes and its creation
 * (by any thread) hold this object's monitor, so the copy the creation makes misses no write.
 */
final class PendingWrites {
    /** Marks a delete; compared by identity, so no caller's array can be mistaken for it. */
    private static final byte[] TOMBSTONE = new byte[0];
    /** Bytes counted per entry beside key and value: hash-map entry and batch overhead. */
    private static final int ENTRY_OVERHEAD = 64;
    /** Bytes counted per entry for the sorted map's node and index levels. */
    private static final int SORTED_ENTRY_OVERHEAD = 48;

    private final ConcurrentHashMap<Bytes, byte[]> latest = new ConcurrentHashMap<>();
    /** The same entries in key order, for {@link #snapshot}; null until the first snapshot. */
    private volatile ConcurrentSkipListMap<Bytes, byte[]> sorted;
    private volatile long bytes;

    /**
     * Buffers a put, or a delete when {@code value} is null, of a stored key. The key's array
     * becomes the buffer's: callers pass a new one (every stored key is built fresh).
     */
    void put(Bytes storedKey, byte[] value) {
        byte[] v = value == null ? TOMBSTONE : value;
        byte[] old;
        ConcurrentSkipListMap<Bytes, byte[]> s = sorted;
        if (s != null) {
            old = latest.put(storedKey, v);
            s.put(storedKey, v);
        } else {
            synchronized (this) {
                old = latest.put(storedKey, v);
                s = sorted;
                if (s != null) {
                    s.put(storedKey, v);
                }
            }
        }
        int overhead = ENTRY_OVERHEAD + (s == null ? 0 : SORTED_ENTRY_OVERHEAD);
        long b = bytes + v.length;
        bytes = b + (old == null ? storedKey.get().length + overhead : -old.length);
    }

    /** The sorted map, made (a copy of the buffer) on the first call. */
    private ConcurrentSkipListMap<Bytes, byte[]> sorted() {
        ConcurrentSkipListMap<Bytes, byte[]> s = sorted;
        if (s == null) {
            synchronized (this) {
                s = sorted;
                if (s == null) {
                    s = new ConcurrentSkipListMap<>(latest);
                    sorted = s;
                }
            }
        }
        return s;
    }

    /** One lookup: {@code found[0]} tells whether the key is buffered; returns its value copy. */
    byte[] lookup(Bytes key, boolean[] found) {
        byte[] v = latest.get(key);
        found[0] = v != null;
        return v == null || v == TOMBSTONE ? null : v.clone();
    }

    /**
     * A copy of the buffered writes with keys in [{@code lo}, {@code hi}) (null: open), in scan
     * order; a delete has a null value. Value arrays are shared: callers copy what they hand out.
     */
    List<Map.Entry<byte[], byte[]>> snapshot(byte[] lo, byte[] hi, boolean forward) {
        if (latest.isEmpty()) {
            return List.of();
        }
        ConcurrentSkipListMap<Bytes, byte[]> sorted = sorted();
        NavigableMap<Bytes, byte[]> range = sorted;
        if (lo != null && hi != null) {
            if (Bytes.wrap(lo).compareTo(Bytes.wrap(hi)) >= 0) {
                return List.of();
            }
            range = sorted.subMap(Bytes.wrap(lo), true, Bytes.wrap(hi), false);
        } else if (lo != null) {
            range = sorted.tailMap(Bytes.wrap(lo), true);
        } else if (hi != null) {
            range = sorted.headMap(Bytes.wrap(hi), false);
        }
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
        for (Map.Entry<Bytes, byte[]> e : (forward ? range : range.descendingMap()).entrySet()) {
            byte[] v = e.getValue();
            out.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey().get(), v == TOMBSTONE ? null : v));
        }
        return out;
    }

    /** Adds every buffered write to {@code batch} (keys are distinct, so their order is of no matter). */
    void addTo(WriteBatch batch) {
        for (Map.Entry<Bytes, byte[]> e : latest.entrySet()) {
            byte[] key = e.getKey().get();
            if (e.getValue() == TOMBSTONE) {
                batch.delete(key);
            } else {
                batch.put(key, e.getValue());
            }
        }
    }

    /** Adds the buffered writes to {@code batch} as writes of {@code keyspace}. */
    void addTo(WriteBatch batch, io.bloomstore.core.Keyspace keyspace) {
        for (Map.Entry<Bytes, byte[]> e : latest.entrySet()) {
            byte[] key = e.getKey().get();
            if (e.getValue() == TOMBSTONE) {
                batch.delete(keyspace, key);
            } else {
                batch.put(keyspace, key, e.getValue());
            }
        }
    }

    int size() {
        return latest.size();
    }

    boolean isEmpty() {
        return latest.isEmpty();
    }

    /** Approximate bytes held: keys, values and a per-entry overhead. */
    long bytes() {
        return bytes;
    }

    /** After a commit wrote the entries (readers then find them in the BloomStore), or to drop them. */
    void clear() {
        ConcurrentSkipListMap<Bytes, byte[]> s = sorted;
        if (s != null) {
            s.clear();
            latest.clear();
        } else {
            synchronized (this) {
                latest.clear();
                s = sorted;
                if (s != null) {
                    s.clear();
                }
            }
        }
        bytes = 0;
    }
}
