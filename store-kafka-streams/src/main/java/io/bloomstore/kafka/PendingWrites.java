package io.bloomstore.kafka;

import io.bloomstore.core.WriteBatch;
import org.apache.kafka.common.utils.Bytes;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
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
 * modifies it afterwards), and {@link #get} returns a copy.
 *
 * <p>Keys are kept sorted (unsigned lexicographic, the stores' order), so a scan can merge the
 * buffered writes of its range with the BloomStore's entries ({@link #snapshot}) instead of
 * writing them out first.
 *
 * <p>Thread safety: one writer at a time (the store serializes its writes); {@link #lookup} and
 * {@link #snapshot} may run concurrently from interactive-query threads and see either the
 * buffered or the stored value.
 */
final class PendingWrites {
    /** Marks a delete; compared by identity, so no caller's array can be mistaken for it. */
    private static final byte[] TOMBSTONE = new byte[0];
    /** Bytes counted per entry beside key and value: map entry and batch overhead. */
    private static final int ENTRY_OVERHEAD = 64;

    private final ConcurrentSkipListMap<Bytes, byte[]> writes = new ConcurrentSkipListMap<>();
    /** Maps a buffered key to the key the BloomStore keeps. */
    private final UnaryOperator<byte[]> encoder;
    private long bytes;

    /** Buffers user keys of a key-value store: they are stored behind {@link KeyCodec#DATA}. */
    PendingWrites() {
        this(KeyCodec::encode);
    }

    /** Buffers keys that {@code encoder} maps to the stored keys. */
    PendingWrites(UnaryOperator<byte[]> encoder) {
        this.encoder = encoder;
    }

    /** Buffers a put, or a delete when {@code value} is null. */
    void put(Bytes key, byte[] value) {
        Bytes copy = Bytes.wrap(key.get().clone());
        byte[] old = writes.put(copy, value == null ? TOMBSTONE : value);
        bytes += value == null ? 0 : value.length;
        bytes += old == null ? copy.get().length + ENTRY_OVERHEAD : -old.length;
    }

    /** One lookup: {@code found[0]} tells whether the key is buffered; returns its value copy. */
    byte[] lookup(Bytes key, boolean[] found) {
        byte[] v = writes.get(key);
        found[0] = v != null;
        return v == null || v == TOMBSTONE ? null : v.clone();
    }

    /**
     * A copy of the buffered writes with keys in [{@code lo}, {@code hi}) (null: open), in scan
     * order; a delete has a null value. Value arrays are shared: callers copy what they hand out.
     */
    List<Map.Entry<byte[], byte[]>> snapshot(byte[] lo, byte[] hi, boolean forward) {
        if (writes.isEmpty()) {
            return List.of();
        }
        NavigableMap<Bytes, byte[]> range = writes;
        if (lo != null && hi != null) {
            if (Bytes.wrap(lo).compareTo(Bytes.wrap(hi)) >= 0) {
                return List.of();
            }
            range = writes.subMap(Bytes.wrap(lo), true, Bytes.wrap(hi), false);
        } else if (lo != null) {
            range = writes.tailMap(Bytes.wrap(lo), true);
        } else if (hi != null) {
            range = writes.headMap(Bytes.wrap(hi), false);
        }
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
        for (Map.Entry<Bytes, byte[]> e : (forward ? range : range.descendingMap()).entrySet()) {
            byte[] v = e.getValue();
            out.add(new AbstractMap.SimpleImmutableEntry<>(encoder.apply(e.getKey().get()), v == TOMBSTONE ? null : v));
        }
        return out;
    }

    void addTo(WriteBatch batch) {
        for (Map.Entry<Bytes, byte[]> e : writes.entrySet()) {
            byte[] key = encoder.apply(e.getKey().get());
            if (e.getValue() == TOMBSTONE) {
                batch.delete(key);
            } else {
                batch.put(key, e.getValue());
            }
        }
    }

    int size() {
        return writes.size();
    }

    boolean isEmpty() {
        return writes.isEmpty();
    }

    /** Approximate bytes held: keys, values and a per-entry overhead. */
    long bytes() {
        return bytes;
    }

    void clear() {
        writes.clear();
        bytes = 0;
    }
}
