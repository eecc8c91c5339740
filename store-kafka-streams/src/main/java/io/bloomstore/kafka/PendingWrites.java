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
import java.util.function.UnaryOperator;

/**
 * The writes a {@link BloomKeyValueStore} (or one time segment of a {@link SegmentedStore}) has taken since it last wrote to its BloomStore: the
 * latest value (or delete) per key. They reach the store as one {@link WriteBatch} together with
 * the changelog offsets at the next commit, or earlier when they pass a size bound or an iterator
 * is opened. So a store write costs one WAL record per commit, not one per put, and the data and
 * the offsets that describe it are always written atomically, as Kafka's RocksDB store gets from
 * writing without a WAL and flushing atomically.
 *
 * <p>Arrays: the key is copied; the value array is kept as Kafka hands it over (Kafka never
 * modifies it afterwards), and {@link #lookup} returns a copy.
 *
 * <p>Point lookups ({@link #lookup}, on every {@code get} of the store) use a hash map: a key
 * that is not buffered costs one hash probe, not a search of a sorted map whose every step
 * compares byte arrays. Buffers made {@link #sorted} also keep their keys in a sorted map
 * (unsigned lexicographic, the stores' order), so a scan can merge the buffered writes of its
 * range with the BloomStore's entries ({@link #snapshot}) instead of writing them out first; a
 * key-value store writes its buffer out before a scan, so it keeps no sorted map.
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

    private final ConcurrentHashMap<Bytes, byte[]> latest = new ConcurrentHashMap<>();
    /** The same entries in key order, for {@link #snapshot}; null when the buffer is unsorted. */
    private final ConcurrentSkipListMap<Bytes, byte[]> sorted;
    /** Maps a buffered key to the key the BloomStore keeps. */
    private final UnaryOperator<byte[]> encoder;
    private final int entryOverhead;
    private long bytes;

    private PendingWrites(UnaryOperator<byte[]> encoder, boolean keepSorted) {
        this.encoder = encoder;
        this.sorted = keepSorted ? new ConcurrentSkipListMap<>() : null;
        this.entryOverhead = ENTRY_OVERHEAD + (keepSorted ? SORTED_ENTRY_OVERHEAD : 0);
    }

    /** A buffer of a key-value store's user keys, stored behind {@link KeyCodec#DATA}; no {@link #snapshot}. */
    static PendingWrites unsorted() {
        return new PendingWrites(KeyCodec::encode, false);
    }

    /** A buffer of keys stored as they are, kept sorted for {@link #snapshot}. */
    static PendingWrites sorted() {
        return new PendingWrites(UnaryOperator.identity(), true);
    }

    /** Buffers a put, or a delete when {@code value} is null. */
    void put(Bytes key, byte[] value) {
        Bytes copy = Bytes.wrap(key.get().clone());
        byte[] v = value == null ? TOMBSTONE : value;
        byte[] old = latest.put(copy, v);
        if (sorted != null) {
            sorted.put(copy, v);
        }
        bytes += v.length;
        bytes += old == null ? copy.get().length + entryOverhead : -old.length;
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
     *
     * @throws IllegalStateException on a buffer not made {@link #sorted}
     */
    List<Map.Entry<byte[], byte[]>> snapshot(byte[] lo, byte[] hi, boolean forward) {
        if (sorted == null) {
            throw new IllegalStateException("an unsorted buffer of pending writes has no ordered snapshot");
        }
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
            out.add(new AbstractMap.SimpleImmutableEntry<>(encoder.apply(e.getKey().get()), v == TOMBSTONE ? null : v));
        }
        return out;
    }

    void addTo(WriteBatch batch) {
        for (Map.Entry<Bytes, byte[]> e : (sorted != null ? sorted : latest).entrySet()) {
            byte[] key = encoder.apply(e.getKey().get());
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

    void clear() {
        if (sorted != null) {
            sorted.clear();
        }
        latest.clear();
        bytes = 0;
    }
}
