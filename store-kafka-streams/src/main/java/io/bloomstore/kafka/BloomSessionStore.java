package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.SessionStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;

/**
 * A Kafka Streams {@code SessionStore<Bytes, byte[]>} kept in time-segmented BloomStores
 * ({@link SegmentedStore}), with the semantics of Kafka's RocksDB session store: a session is
 * (key, start, end) → aggregate, in the segment of its end; {@link #put} with a null aggregate and
 * {@link #remove} delete; reads see only sessions ending at or after
 * {@code streamTime − retention + 1}. {@code findSessions(key, earliestEnd, latestStart)} returns
 * the sessions with {@code end ≥ earliestEnd} and {@code start ≤ latestStart}; null key bounds are
 * open. Iteration order is Kafka's RocksDB's: segment by segment, by key, end and start within a
 * segment; for one key that is (end, start) order.
 *
 * <p>One-key lookups scan {@code [key@earliestEnd, key]} of the segments, confined to that key, so
 * the segments' prefix filters skip tables that do not hold it (see {@link SegmentKeys}).
 *
 * <p>Thread safety: as {@link SegmentedStore}; safe for the stream thread and interactive queries.
 */
public class BloomSessionStore extends SegmentedBytesStore implements SessionStore<Bytes, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(BloomSessionStore.class);
    /** Kafka's changelog key: key, end (8 bytes), start (8 bytes). */
    private static final int CHANGELOG_SUFFIX = 2 * Long.BYTES;


    BloomSessionStore(String name, String metricsScope, StoreOptions options, long retentionPeriod,
                      long segmentInterval) {
        super(name, metricsScope, options, retentionPeriod, segmentInterval);
    }

    /** The {@code READ_COMMITTED} view of {@code live}. */
    private BloomSessionStore(BloomSessionStore live) {
        super(live);
    }

    /**
     * This store at {@code isolationLevel}: itself at {@code READ_UNCOMMITTED}; at
     * {@code READ_COMMITTED} (transactional mode) a view of the committed state alone. In
     * write-through mode the store answers for both, as Kafka's stores with transactional state
     * stores off.
     */
    @Override
    public ReadOnlySessionStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        return store.committedReads(isolationLevel) ? new BloomSessionStore(this) : this;
    }

    @Override
    void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        store.restoreBatch(records, k -> ByteBuffer.wrap(k).getLong(k.length - CHANGELOG_SUFFIX), k -> {
            int keyLength = k.length - CHANGELOG_SUFFIX;
            ByteBuffer b = ByteBuffer.wrap(k);
            long end = b.getLong(keyLength);
            long start = b.getLong(keyLength + Long.BYTES);
            return SegmentKeys.session(Arrays.copyOf(k, keyLength), start, end);
        });
    }

    @Override
    public void put(Windowed<Bytes> sessionKey, byte[] aggregate) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        Objects.requireNonNull(sessionKey.key(), "sessionKey.key() cannot be null");
        checkWritable();
        long end = sessionKey.window().end();
        store.put(end, SegmentKeys.session(sessionKey.key().get(), sessionKey.window().start(), end), aggregate);
    }

    @Override
    public void remove(Windowed<Bytes> sessionKey) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        Objects.requireNonNull(sessionKey.key(), "sessionKey.key() cannot be null");
        checkWritable();
        long end = sessionKey.window().end();
        store.remove(end, SegmentKeys.session(sessionKey.key().get(), sessionKey.window().start(), end));
    }

    @Override
    public byte[] fetchSession(Bytes key, long sessionStartTime, long sessionEndTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return store.get(sessionEndTime, SegmentKeys.session(key.get(), sessionStartTime, sessionEndTime), committed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes key, long earliestSessionEndTime,
                                                                  long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return oneKey(key, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes key, long earliestSessionEndTime,
                                                                          long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return oneKey(key, earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes keyFrom, Bytes keyTo,
                                                                  long earliestSessionEndTime,
                                                                  long latestSessionStartTime) {
        return keyRange(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes keyFrom, Bytes keyTo,
                                                                          long earliestSessionEndTime,
                                                                          long latestSessionStartTime) {
        return keyRange(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, false);
    }

    /** Every session whose end is in [earliestSessionEndTime, latestSessionEndTime]. */
    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(long earliestSessionEndTime,
                                                                  long latestSessionEndTime) {
        return sessions(earliestSessionEndTime, latestSessionEndTime, Long.MAX_VALUE, true, null, null);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes key) {
        return findSessions(key, 0, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes key) {
        return backwardFindSessions(key, 0, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo) {
        return findSessions(keyFrom, keyTo, 0, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo) {
        return backwardFindSessions(keyFrom, keyTo, 0, Long.MAX_VALUE);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> oneKey(Bytes key, long earliestEnd, long latestStart,
                                                             boolean forward) {
        long from = Math.max(earliestEnd, store.minVisibleTime(committed));
        byte[] k = key.get();
        return sessions(from, Long.MAX_VALUE, latestStart, forward, SegmentKeys.atTime(k, from),
                SegmentKeys.keyUpperBound(k));
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> keyRange(Bytes keyFrom, Bytes keyTo, long earliestEnd,
                                                               long latestStart, boolean forward) {
        if (invalidKeyRange(keyFrom, keyTo, LOG)) {
            return sessions(0, -1, latestStart, forward, null, null);
        }
        byte[] lo = keyFrom == null ? null : SegmentKeys.keyLowerBound(keyFrom.get());
        byte[] hi = keyTo == null ? null : SegmentKeys.keyUpperBound(keyTo.get());
        return sessions(earliestEnd, Long.MAX_VALUE, latestStart, forward, lo, hi);
    }

    /** Sessions of keys in [lo, hi) with end in [endFrom, endTo] (and visible), start ≤ latestStart. */
    private KeyValueIterator<Windowed<Bytes>, byte[]> sessions(long endFrom, long endTo, long latestStart,
                                                               boolean forward, byte[] lo, byte[] hi) {
        long from = Math.max(endFrom, store.minVisibleTime(committed));
        return store.iterate(from, endTo, forward, lo, hi, committed, c -> new SegmentedIterator<>(store, c, kv -> {
            long end = SegmentKeys.firstTime(kv.key());
            long start = SegmentKeys.secondTime(kv.key());
            if (end < from || end > endTo || start > latestStart) {
                return null;
            }
            return KeyValue.pair(new Windowed<>(Bytes.wrap(SegmentKeys.userKey(kv.key())), new SessionWindow(start, end)),
                    kv.value());
        }));
    }
}
