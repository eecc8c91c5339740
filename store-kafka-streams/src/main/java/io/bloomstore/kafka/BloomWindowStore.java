package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A Kafka Streams {@code WindowStore<Bytes, byte[]>} kept in time-segmented BloomStores
 * ({@link SegmentedStore}), with the semantics of Kafka's RocksDB window store: an entry is
 * (key, window start) → value, in the segment of its window start; a null value deletes (and is
 * ignored with {@code retainDuplicates}, which gives every put its own sequence number, for
 * stream-stream joins); reads see only windows starting at or after
 * {@code streamTime − retention + 1}; time bounds are inclusive; null key bounds are open; a key
 * range with {@code from > to} is empty. Iteration order is Kafka's RocksDB's: segment by
 * segment (oldest first, newest first backwards), by key and then window start within a segment;
 * a one-key fetch is thus in window-start order. Windows are {@code [start, start + windowSize)}.
 *
 * <p>A one-key fetch scans {@code [key@from, key@to]} of each segment in the time range, a scan the
 * segment's prefix filters confine to that key: a table whose prefix filter says the key is absent
 * is skipped before any of its blocks is read, so a join probe for a key that is not there reads no
 * data block (see {@link SegmentKeys}).
 *
 * <p>Thread safety: as {@link SegmentedStore}; safe for the stream thread and interactive queries.
 */
public class BloomWindowStore extends SegmentedBytesStore implements WindowStore<Bytes, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(BloomWindowStore.class);
    /** Kafka's changelog key: key, window start (8 bytes), sequence number (4 bytes). */
    private static final int CHANGELOG_SUFFIX = Long.BYTES + Integer.BYTES;

    private final long windowSize;
    private final boolean retainDuplicates;
    private int seqnum;

    BloomWindowStore(String name, String metricsScope, StoreOptions options, long retentionPeriod,
                     long segmentInterval, long windowSize, boolean retainDuplicates) {
        super(name, metricsScope, options, retentionPeriod, segmentInterval);
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
    }

    /** The {@code READ_COMMITTED} view of {@code live}. */
    private BloomWindowStore(BloomWindowStore live) {
        super(live);
        this.windowSize = live.windowSize;
        this.retainDuplicates = live.retainDuplicates;
    }

    /**
     * This store at {@code isolationLevel}: itself at {@code READ_UNCOMMITTED}; at
     * {@code READ_COMMITTED} (transactional mode) a view of the committed state alone. In
     * write-through mode the store answers for both, as Kafka's stores with transactional state
     * stores off.
     */
    @Override
    public ReadOnlyWindowStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        return store.committedReads(isolationLevel) ? new BloomWindowStore(this) : this;
    }

    @Override
    void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        store.restoreBatch(records, k -> ByteBuffer.wrap(k).getLong(k.length - CHANGELOG_SUFFIX), k -> {
            int keyLength = k.length - CHANGELOG_SUFFIX;
            ByteBuffer b = ByteBuffer.wrap(k);
            return SegmentKeys.window(Arrays.copyOf(k, keyLength), b.getLong(keyLength), b.getInt(keyLength + Long.BYTES));
        });
    }

    @Override
    public void put(Bytes key, byte[] value, long windowStartTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkWritable();
        if (value == null && retainDuplicates) {
            return;
        }
        synchronized (this) {
            if (retainDuplicates) {
                seqnum = (seqnum + 1) & Integer.MAX_VALUE;
            }
            store.put(windowStartTimestamp, SegmentKeys.window(key.get(), windowStartTimestamp, seqnum), value);
        }
    }

    @Override
    public byte[] fetch(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        return store.get(timestamp, SegmentKeys.window(key.get(), timestamp, seqnum), committed);
    }

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        return fetchKey(key, timeFrom, timeTo, true);
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        return fetchKey(key, timeFrom, timeTo, false);
    }

    private WindowStoreIterator<byte[]> fetchKey(Bytes key, long timeFrom, long timeTo, boolean forward) {
        Objects.requireNonNull(key, "key cannot be null");
        long from = Math.max(timeFrom, store.minVisibleTime(committed));
        byte[] k = key.get();
        byte[] lo = SegmentKeys.atTime(k, from);
        byte[] hi = timeTo == Long.MAX_VALUE ? SegmentKeys.keyUpperBound(k) : SegmentKeys.atTime(k, timeTo + 1);
        if (timeTo < from) {
            return store.iterate(0, -1, forward, lo, hi, committed, c -> new SegmentedIterator.Values(store, c, kv -> null));
        }
        return store.iterate(from, timeTo, forward, lo, hi, committed, c -> new SegmentedIterator.Values(store, c,
                kv -> KeyValue.pair(SegmentKeys.firstTime(kv.key()), kv.value())));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return fetchRange(keyFrom, keyTo, timeFrom, timeTo, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                                 long timeTo) {
        return fetchRange(keyFrom, keyTo, timeFrom, timeTo, false);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> fetchRange(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                                 long timeTo, boolean forward) {
        if (invalidKeyRange(keyFrom, keyTo, LOG)) {
            return windowed(0, -1, forward, null, null);
        }
        byte[] lo = keyFrom == null ? null : SegmentKeys.keyLowerBound(keyFrom.get());
        byte[] hi = keyTo == null ? null : SegmentKeys.keyUpperBound(keyTo.get());
        return windowed(timeFrom, timeTo, forward, lo, hi);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return windowed(timeFrom, timeTo, true, null, null);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return windowed(timeFrom, timeTo, false, null, null);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return windowed(0, Long.MAX_VALUE, true, null, null);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return windowed(0, Long.MAX_VALUE, false, null, null);
    }

    /** Entries of keys in [lo, hi) whose window start is in [timeFrom, timeTo] and visible. */
    private KeyValueIterator<Windowed<Bytes>, byte[]> windowed(long timeFrom, long timeTo, boolean forward,
                                                               byte[] lo, byte[] hi) {
        long from = Math.max(timeFrom, store.minVisibleTime(committed));
        return store.iterate(from, timeTo, forward, lo, hi, committed, c -> new SegmentedIterator<>(store, c, kv -> {
            long start = SegmentKeys.firstTime(kv.key());
            if (start < from || start > timeTo) {
                return null;
            }
            return KeyValue.pair(new Windowed<>(Bytes.wrap(SegmentKeys.userKey(kv.key())), window(start)), kv.value());
        }));
    }

    /** Kafka's window of a start: {@code [start, start + size)}, the end capped at Long.MAX_VALUE. */
    private TimeWindow window(long start) {
        long end = start + windowSize;
        return new TimeWindow(start, end < 0 ? Long.MAX_VALUE : end);
    }

    /** The ids of the live segments (window start / segment interval), oldest first. */
    public List<Long> segmentIds() {
        return store.segmentIds();
    }
}
