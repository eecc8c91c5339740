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
 * of a sorted map whose every step compares byte arrays. The same entries are kept in a sorted
 * map too (unsigned lexicographic, the stores' order) for {@link #snapshot}.
 *
 * <p>Thread safety: one writer at a time (the store serializes its writes); {@link #lookup} and
 * {@link #snapshot} may run concurrently from interactive-query threads and see either the
 * buffered or the stored value.
 */
final class PendingWrites {
    /** Marks a delete; compared by identity, so no caller's array can be mistaken for it. */
    private static final byte[] TOMBSTONE = new byte[0];
    /** Bytes counted per entry beside key and value: hash-map entry and batch overhead. */
    private static final int ENTRY_OVERHEAD = 64;
    /** Bytes counted per entry for the sorted map's node and index levels. */
    private static final int SORTED_ENTRY_OVERHEAD = 48;
    private static final int OVERHEAD = ENTRY_OVERHEAD + SORTED_ENTRY_OVERHEAD;

    private final ConcurrentHashMap<Bytes, byte[]> latest = new ConcurrentHashMap<>();
    /** The same entries in key order, for {@link #snapshot}. */
    private final ConcurrentSkipListMap<Bytes, byte[]> sorted = new ConcurrentSkipListMap<>();
    private volatile long bytes;

    /**
     * Buffers a put, or a delete when {@code value} is null, of a stored key. The key's array
     * becomes the buffer's: callers pass a new one (every stored key is built fresh).
     */
    void put(Bytes storedKey, byte[] value) {
        byte[] v = value == null ? TOMBSTONE : value;
        byte[] old = latest.put(storedKey, v);
        sorted.put(storedKey, v);
        long b = bytes + v.length;
        bytes = b + (old == null ? storedKey.get().length + OVERHEAD : -old.length);
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
        if (sorted.isEmpty()) {
            return List.of();
        }
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

    void addTo(WriteBatch batch) {
        for (Map.Entry<Bytes, byte[]> e : sorted.entrySet()) {
            byte[] key = e.getKey().get();
            if (e.getValue() == TOMBSTONE) {
                batch.delete(key);
            } else {
                batch.put(key, e.getValue());
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
        sorted.clear();
        latest.clear();
        bytes = 0;
    }
}
