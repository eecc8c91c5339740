package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Kafka Streams {@code KeyValueStore<Bytes, byte[]>} kept in a BloomStore, with the semantics of
 * Kafka's RocksDB store: a null value is a delete, ranges are inclusive of both bounds and empty
 * when {@code from > to}, null range bounds are open, keys iterate in unsigned lexicographic order,
 * {@link #putAll} is one atomic {@link WriteBatch}, iterators still open when the store closes are
 * closed with it. The store lives in {@code <task state dir>/bloomstore/<name>}.
 *
 * <p>Changelog restore goes through {@link RecordBatchingStateRestoreCallback}: each restored
 * batch is one {@link WriteBatch} written without sync. The store manages its changelog offsets
 * ({@link #managesOffsets()}): they are written with the IQ {@link Position} into the store
 * itself, under a key namespace no user key can reach, in the same batch as the data they
 * describe, so after a crash the recovered offsets always describe the recovered data. No write
 * is synced: the changelog is the source of truth. Under exactly_once_v2 a store that was not
 * closed cleanly refuses to open ({@link OpenStatus}), so Kafka rebuilds it from the changelog.
 *
 * <p>Writes are buffered ({@link PendingWrites}) and reach the BloomStore as one batch with the
 * committed offsets when the buffer passes half the memtable size (at most 8 MiB), before any
 * iterator opens, and at close; reads look in the buffer first.
 *
 * <p>Arrays: keys are copied on the way in; value arrays are kept by reference, as Kafka's own
 * stores do, since Kafka never modifies a value array after handing it over. Returned arrays are
 * the caller's own.
 *
 * <p>Thread safety: safe for the stream thread and interactive-query threads at once; writes are
 * serialized on the store so {@link #putIfAbsent} and the position stay consistent. Every use of
 * the BloomStore runs inside the store's {@link StoreGate}, whose close waits for the calls and
 * iterator steps in flight and releases the open iterators before the BloomStore closes: a query
 * racing the stream thread's close gets {@link InvalidStateStoreException}, never a BloomStore
 * exception, and never reads the memory the close freed (see {@link StoreGate}).
 */
public class BloomKeyValueStore implements KeyValueStore<Bytes, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(BloomKeyValueStore.class);
    static final String DIR = "bloomstore";
    private static final byte[] POSITION_KEY = KeyCodec.meta("position");

    private final String name;
    private final String metricsScope;
    private final StoreOptions options;
    private final StoreGate gate;
    private volatile Store store;
    private StateStoreContext context;
    private Position position = Position.emptyPosition();
    private boolean consistencyEnabled;
    private BloomStoreMetrics metrics;
    private File dir;
    /** Writes made through this instance: with the tables' entry counts, an estimate of the size. */
    private long writes;
    private final PendingWrites pending = PendingWrites.unsorted();
    private final PendingOffsets offsets = new PendingOffsets();
    /** Buffered writes past this many bytes go to the store before the next commit. */
    private final long maxPendingBytes;

    BloomKeyValueStore(String name, String metricsScope, StoreOptions options) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.metricsScope = metricsScope;
        this.gate = new StoreGate(name);
        this.options = Objects.requireNonNull(options, "options cannot be null");
        this.maxPendingBytes = Math.max(64 * 1024, Math.min(options.memtableBytes() / 2, 8L << 20));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        this.context = context;
        this.dir = new File(new File(context.stateDir(), DIR), name);
        try {
            store = Store.open(dir.toPath(), options);
            byte[] stored = store.get(POSITION_KEY);
            position = stored == null ? Position.emptyPosition() : PositionCodec.decode(stored);
            OpenStatus.open(store, context, name);
        } catch (TaskCorruptedException e) {
            closeQuietly();
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw new ProcessorStateException("Error opening BloomStore " + name + " at " + dir, e);
        }
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        gate.opened();
        metrics = BloomStoreMetrics.register(context, metricsScope, name, this::statsIfOpen);
        context.register(root, (RecordBatchingStateRestoreCallback) this::restoreBatch);
    }

    /** The statistics of the BloomStore behind this Kafka store. */
    public StoreStats stats() {
        gate.enter();
        try {
            return store.stats();
        } finally {
            gate.exit();
        }
    }

    /** The statistics as a one-element list, or null while the store is closed: for the metrics. */
    private List<StoreStats> statsIfOpen() {
        if (!gate.tryEnter()) {
            return null;
        }
        try {
            return List.of(store.stats());
        } finally {
            gate.exit();
        }
    }

    /** The directory of the store: {@code <state dir>/bloomstore/<name>}; null before init. */
    public File directory() {
        return dir;
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return gate.isOpen();
    }

    @Override
    public synchronized Position getPosition() {
        return position;
    }

    @Override
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position, context);
    }

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        gate.enter();
        try {
            boolean[] buffered = new boolean[1];
            byte[] v = pending.lookup(key, buffered);
            if (buffered[0]) {
                return v;
            }
            return store.get(KeyCodec.encode(key.get()));
        } catch (IOException | UncheckedIOException e) {
            throw new ProcessorStateException("Error reading key from BloomStore " + name, e);
        } finally {
            gate.exit();
        }
    }

    @Override
    public synchronized void put(Bytes key, byte[] value) {
        checkSizes(key, value);
        checkOpen();
        pending.put(key, value);
        writes++;
        StoreQueryUtils.updatePosition(position, context);
        if (pending.bytes() > maxPendingBytes) {
            writeAllInGate();
        }
    }

    @Override
    public synchronized byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] existing = get(key);
        if (existing == null) {
            put(key, value);
        }
        return existing;
    }

    /** Atomic: the entries are buffered together and reach the store in one {@link WriteBatch}. */
    @Override
    public synchronized void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        checkOpen();
        for (KeyValue<Bytes, byte[]> e : entries) {
            checkSizes(e.key, e.value);
        }
        for (KeyValue<Bytes, byte[]> e : entries) {
            pending.put(e.key, e.value);
        }
        writes += entries.size();
        StoreQueryUtils.updatePosition(position, context);
        if (pending.bytes() > maxPendingBytes) {
            writeAllInGate();
        }
    }

    @Override
    public synchronized byte[] delete(Bytes key) {
        byte[] old = get(key);
        put(key, null);
        return old;
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return range(from, to, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return iterate(KeyCodec.DATA_START, KeyCodec.DATA_END, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return iterate(KeyCodec.DATA_START, KeyCodec.DATA_END, true);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] p = prefixKeySerializer.serialize(null, prefix);
        return iterate(KeyCodec.encode(p), KeyCodec.prefixEnd(p), false);
    }

    private KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean reverse) {
        if (from != null && to != null && from.compareTo(to) > 0) {
            LOG.warn("Returning an empty iterator for store {}: the range's from key is greater than its to key."
                    + " Note that the serialized keys are compared, and their order may differ from the keys'.", name);
            checkOpen();
            return new EmptyKeyValueIterator();
        }
        byte[] lo = from == null ? KeyCodec.DATA_START : KeyCodec.encode(from.get());
        byte[] hi = to == null ? KeyCodec.DATA_END : KeyCodec.encodeSuccessor(to.get());
        return iterate(lo, hi, reverse);
    }

    private synchronized KeyValueIterator<Bytes, byte[]> iterate(byte[] lo, byte[] hi, boolean reverse) {
        gate.enter();
        try {
            if (!pending.isEmpty()) {
                writeAll();
            }
            StoreIterator inner = reverse ? store.reverseIterator(lo, hi) : store.iterator(lo, hi);
            return new BloomKeyValueIterator(gate, name, inner);
        } catch (UncheckedIOException e) {
            throw new ProcessorStateException("Error opening an iterator of BloomStore " + name, e.getCause());
        } finally {
            gate.exit();
        }
    }

    /**
     * An estimate: entries in the tables (older versions and tombstones included) plus the writes
     * made through this instance since it was opened; exact for a fresh store written with
     * distinct keys and not yet flushed.
     */
    @Override
    public synchronized long approximateNumEntries() {
        gate.enter();
        try {
            long inTables = store.stats().levels().stream().mapToLong(l -> l.entries()).sum();
            long estimate = inTables + writes;
            return estimate < 0 ? Long.MAX_VALUE : estimate;
        } finally {
            gate.exit();
        }
    }

    /** The bytes of buffered writes: Kafka commits early when the stores' sum passes its bound. */
    @Override
    public long approximateNumUncommittedBytes() {
        return pending.bytes();
    }

    /**
     * Stores manage their changelog offsets, as Kafka's RocksDB store does: they are written into
     * the store in the same batch as the data they describe, so after a crash the recovered
     * offsets always match the recovered data (the store recovers a prefix of its writes).
     */
    @Override
    public boolean managesOffsets() {
        return true;
    }

    /**
     * Takes the changelog offsets of a Kafka commit. They are written, with the buffered data and
     * the IQ position, when the buffer passes its bound, before an iterator opens, and at close
     * (as Kafka's RocksDB store keeps data and offsets in its memtable without a WAL): a crash
     * loses buffered data and its offsets together, and Kafka restores both from the changelog.
     * An empty map removes every stored offset; a null offset removes that partition's.
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (!gate.isOpen()) {
            return;
        }
        offsets.record(changelogOffsets);
        if (pending.bytes() > maxPendingBytes) {
            writeAllInGate();
        }
    }

    @Override
    public synchronized Long committedOffset(TopicPartition partition) {
        gate.enter();
        try {
            return offsets.committed(partition, store, name);
        } finally {
            gate.exit();
        }
    }

    /** Writes the buffered data, offsets and IQ position to the BloomStore (unsynced). */
    @Override
    public synchronized void flush() {
        if (gate.isOpen()) {
            writeAllInGate();
        }
    }

    private void writeAllInGate() {
        gate.enter();
        try {
            writeAll();
        } finally {
            gate.exit();
        }
    }

    /** One batch: buffered data, offset changes, position. Call inside the gate or its close. */
    private void writeAll() {
        writeAll(false);
    }

    /** As {@link #writeAll()}; {@code closing} also marks the store closed cleanly ({@link OpenStatus}). */
    private void writeAll(boolean closing) {
        WriteBatch batch = new WriteBatch();
        pending.addTo(batch);
        try {
            offsets.addTo(batch, store);
            batch.put(POSITION_KEY, PositionCodec.encode(position));
            if (closing) {
                OpenStatus.closeIn(batch);
            }
            store.write(batch, WriteOptions.DEFAULT);
        } catch (IOException | UncheckedIOException e) {
            throw new ProcessorStateException("Error writing to BloomStore " + name, e);
        }
        pending.clear();
        offsets.clear();
    }

    /**
     * Closes the open iterators (waiting for a step in progress in another thread), writes the
     * buffered data and closes the BloomStore; see {@link StoreGate}.
     */
    @Override
    public synchronized void close() {
        gate.close(() -> {
            try {
                writeAll(true);
            } finally {
                if (metrics != null) {
                    metrics.remove();
                    metrics = null;
                }
                closeQuietly();
            }
        });
    }

    /** Restores one batch of changelog records as one unsynced write; tombstones delete. */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        WriteBatch batch = new WriteBatch();
        gate.enter();
        try {
            if (!pending.isEmpty()) {
                writeAll();
            }
            for (ConsumerRecord<byte[], byte[]> r : records) {
                ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(r, consistencyEnabled, position);
                if (r.value() == null) {
                    batch.delete(KeyCodec.encode(r.key()));
                } else {
                    batch.put(KeyCodec.encode(r.key()), r.value());
                }
            }
            store.write(batch, WriteOptions.DEFAULT);
            writes += records.size();
        } catch (IOException | UncheckedIOException e) {
            throw new ProcessorStateException("Error restoring a batch into BloomStore " + name, e);
        } finally {
            gate.exit();
        }
    }

    /**
     * Refuses, before anything is buffered, what the store would refuse at the next commit: a
     * batch failing then would fail every write buffered with it.
     */
    private void checkSizes(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        if (key.get().length + 1 > options.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + key.get().length + " bytes is over the store's maximum of "
                    + (options.maxKeyBytes() - 1) + " (StoreOptions.maxKeyBytes less one namespace byte)");
        }
        if (value != null && value.length > options.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the store's maximum of "
                    + options.maxValueBytes() + " (StoreOptions.maxValueBytes)");
        }
    }

    private void checkOpen() {
        if (!gate.isOpen()) {
            throw gate.closed();
        }
    }

    private void closeQuietly() {
        Store s = store;
        store = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                throw new ProcessorStateException("Error closing BloomStore " + name, e);
            }
        }
    }
}
