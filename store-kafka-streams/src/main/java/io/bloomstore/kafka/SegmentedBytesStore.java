package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.apache.kafka.streams.state.internals.WithRetentionPeriod;
import org.slf4j.Logger;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What {@link BloomWindowStore} and {@link BloomSessionStore} share: the {@link StateStore} life
 * cycle, offsets, IQ position and statistics of the {@link SegmentedStore} under them, as Kafka's
 * window and session stores share {@code AbstractRocksDBSegmentedBytesStore}. Subclasses map
 * their entries to segment keys ({@link SegmentKeys}) and Kafka's changelog keys to stored keys
 * ({@link #restoreBatch}).
 *
 * <p>Thread safety: as {@link SegmentedStore}; safe for the stream thread and interactive queries.
 */
abstract class SegmentedBytesStore implements StateStore, WithRetentionPeriod {
    final SegmentedStore store;
    /**
     * True for a {@code READ_COMMITTED} view ({@code readOnly}): reads skip the buffers and expire
     * by the committed stream time; writes are refused.
     */
    final boolean committed;

    SegmentedBytesStore(String name, String metricsScope, StoreOptions options, long retentionPeriod,
                        long segmentInterval) {
        this.store = new SegmentedStore(name, metricsScope, options, retentionPeriod, segmentInterval);
        this.committed = false;
    }

    /** The {@code READ_COMMITTED} view of {@code live}: same segments, committed reads. */
    SegmentedBytesStore(SegmentedBytesStore live) {
        this.store = live.store;
        this.committed = true;
    }

    /** Refuses a write through a {@code READ_COMMITTED} view. */
    void checkWritable() {
        if (committed) {
            throw new UnsupportedOperationException("a READ_COMMITTED view of store " + store.name + " is read-only");
        }
    }

    /** Restores one batch of Kafka's changelog records (Kafka's changelog key format) into the segments. */
    abstract void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records);

    @Override
    public String name() {
        return store.name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        store.init(context, root, (RecordBatchingStateRestoreCallback) this::restoreBatch);
    }

    @Override
    public boolean persistent() {
        return true;
    }

    /**
     * The retention period, which Kafka reads (through its internal {@link WithRetentionPeriod}, as
     * from its own segmented stores) to restore an empty store from the changelog offset of
     * {@code last record's time − retention} instead of the beginning: records that would expire
     * on arrival are never read.
     */
    @Override
    public long retentionPeriod() {
        return store.retentionPeriod;
    }

    @Override
    public boolean isOpen() {
        return store.gate.isOpen();
    }

    /** The position of every write the store has taken, committed or not (as Kafka's stores report it). */
    @Override
    public Position getPosition() {
        return store.position();
    }

    /**
     * Runs an IQv2 query at the query's isolation level: at {@code READ_COMMITTED} (transactional
     * mode) on the committed view, with the position bound checked against the committed position.
     */
    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        synchronized (store) {
            return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this,
                    store.position(config.getIsolationLevel()), store.context());
        }
    }

    /** Stores manage their offsets: see {@link SegmentedStore}. */
    @Override
    @SuppressWarnings("deprecation")
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        store.commit(changelogOffsets);
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return store.committedOffset(partition);
    }

    @Override
    @SuppressWarnings("deprecation")
    public void flush() {
        store.flush();
    }

    @Override
    public long approximateNumUncommittedBytes() {
        return store.approximateNumUncommittedBytes();
    }

    @Override
    public void close() {
        store.close();
    }

    /** The keyspaces of the store's BloomStore: the default one (offsets, position), then each live segment's. */
    public List<String> keyspaces() {
        return store.keyspaces();
    }

    /** The statistics of each live segment's keyspace, oldest first. */
    public List<StoreStats> segmentStats() {
        return store.segmentStats();
    }

    /** The store's directory, {@code <state dir>/bloomstore/<name>}: its BloomStore is in {@code store} there. */
    public Path directory() {
        return store.directory();
    }

    /** See {@link SegmentedStore#settle()}: for crash tests. */
    void settle() throws java.io.IOException {
        store.settle();
    }

    /** Open iterators: for tests. */
    int openIterators() {
        return store.gate.openIterators();
    }

    /**
     * True, after a warning as Kafka's stores log it, when {@code from > to}: the range is empty.
     * Null bounds are open.
     */
    static boolean invalidKeyRange(Bytes keyFrom, Bytes keyTo, Logger log) {
        if (keyFrom != null && keyTo != null && keyFrom.compareTo(keyTo) > 0) {
            log.warn("Returning empty iterator for fetch with invalid key range: from > to. This may be due to range"
                    + " arguments set in the wrong order, or serdes that don't preserve ordering when"
                    + " lexicographically comparing the serialized bytes. Note that the built-in numerical serdes do"
                    + " not follow this for negative numbers");
            return true;
        }
        return false;
    }
}
