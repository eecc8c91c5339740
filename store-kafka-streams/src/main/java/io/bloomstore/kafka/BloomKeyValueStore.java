package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
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
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
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
 * <p>Transactional ({@link CommitMode}): writes are buffered ({@link PendingWrites}) and reach the
 * BloomStore only at {@link #commit}, as one atomic {@link WriteBatch} with the changelog offsets
 * and the IQ {@link Position}, so the BloomStore is always exactly at a commit: a crash loses the
 * uncommitted writes and nothing else, the store opens without a wipe, and Kafka replays the
 * changelog from the committed offset. The stream thread reads its own writes: gets look in the
 * buffer first, and every iterator merges the buffer over the BloomStore ({@link
 * BufferMergeCursor}); {@link #readOnly} at {@code READ_COMMITTED} gives interactive queries a view
 * that skips the buffer. {@link #approximateNumUncommittedBytes} reports the buffer, so Kafka
 * commits early when the stores pass {@code statestore.uncommitted.max.bytes}. In write-through
 * mode the buffer also goes out when it passes half the memtable size (at most 8 MiB) and at close.
 *
 * <p>Changelog restore goes through {@link RecordBatchingStateRestoreCallback}: each restored
 * batch is one {@link WriteBatch} written without sync. The store manages its changelog offsets
 * ({@link #managesOffsets()}): they are written with the IQ position into the store itself, under
 * a key namespace no user key can reach, in the same batch as the data they describe. No write is
 * synced: the changelog is the source of truth, and a crash recovers a prefix of the batches.
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
    /** The position of every write, committed or not: what the stream thread's reads reflect. */
    private Position position = Position.emptyPosition();
    /** The position as of the last commit: what {@code READ_COMMITTED} reads reflect. */
    private volatile Position committedPosition = Position.emptyPosition();
    private CommitMode mode = CommitMode.TRANSACTIONAL;
    private boolean consistencyEnabled;
    private BloomStoreMetrics metrics;
    private File dir;
    /** Writes made through this instance: with the tables' entry counts, an estimate of the size. */
    private long writes;
    private final PendingWrites pending = new PendingWrites();
    private final PendingOffsets offsets = new PendingOffsets();
    /** In write-through mode, buffered writes past this many bytes go to the store before the next commit. */
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
        this.mode = CommitMode.of(context);
        try {
            store = Store.open(dir.toPath(), options);
            byte[] stored = store.get(POSITION_KEY);
            position = stored == null ? Position.emptyPosition() : PositionCodec.decode(stored);
            committedPosition = position.copy();
            OpenStatus.open(store, context, name, mode);
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

    /**
     * For crash tests: writes the memtable to a table and waits for the background compactions
     * and file deletions, so a copy of the directory taken next is one the store could have left.
     */
    void settle() throws IOException {
        gate.enter();
        try {
            store.flush();
            store.awaitCompactions();
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

    /** The position of every write the store has taken, committed or not (as Kafka's stores report it). */
    @Override
    public synchronized Position getPosition() {
        return position;
    }

    /**
     * Runs an IQv2 query at the query's isolation level: at {@code READ_COMMITTED} (transactional
     * mode) on the committed view, with the position bound checked against the committed position.
     */
    @Override
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        Position p = committedReads(config.getIsolationLevel()) ? committedPosition : position;
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, p, context);
    }

    /**
     * This store at {@code isolationLevel}: itself (its writer's view, uncommitted writes included)
     * at {@code READ_UNCOMMITTED}; at {@code READ_COMMITTED} a view of the BloomStore alone, which in
     * transactional mode holds exactly the committed writes. In write-through mode the BloomStore
     * may hold uncommitted writes, so, as Kafka's stores with transactional state stores off, the
     * store answers for both levels.
     */
    @Override
    public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        return committedReads(isolationLevel) ? new CommittedKeyValueView(this) : this;
    }

    private boolean committedReads(IsolationLevel level) {
        return level == IsolationLevel.READ_COMMITTED && mode.transactional();
    }

    @Override
    public byte[] get(Bytes key) {
        return get(key, false);
    }

    /** A get; with {@code committed}, of the BloomStore alone (the committed state). */
    byte[] get(Bytes key, boolean committed) {
        Objects.requireNonNull(key, "key cannot be null");
        gate.enter();
        try {
            byte[] k = KeyCodec.encode(key.get());
            if (!committed) {
                boolean[] buffered = new boolean[1];
                byte[] v = pending.lookup(Bytes.wrap(k), buffered);
                if (buffered[0]) {
                    return v;
                }
            }
            return store.get(k);
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
        pending.put(Bytes.wrap(KeyCodec.encode(key.get())), value);
        writes++;
        StoreQueryUtils.updatePosition(position, context);
        maybeWriteThrough();
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
            pending.put(Bytes.wrap(KeyCodec.encode(e.key.get())), e.value);
        }
        writes += entries.size();
        StoreQueryUtils.updatePosition(position, context);
        maybeWriteThrough();
    }

    /** Write-through mode only: writes the buffer out once it passes its bound. */
    private void maybeWriteThrough() {
        if (!mode.transactional() && pending.bytes() > maxPendingBytes) {
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
        return range(from, to, false, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, true, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return iterate(KeyCodec.DATA_START, KeyCodec.DATA_END, false, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return iterate(KeyCodec.DATA_START, KeyCodec.DATA_END, true, false);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return prefixScan(prefix, prefixKeySerializer, false);
    }

    <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer,
                                                                             boolean committed) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] p = prefixKeySerializer.serialize(null, prefix);
        return iterate(KeyCodec.encode(p), KeyCodec.prefixEnd(p), false, committed);
    }

    KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean reverse, boolean committed) {
        if (from != null && to != null && from.compareTo(to) > 0) {
            LOG.warn("Returning an empty iterator for store {}: the range's from key is greater than its to key."
                    + " Note that the serialized keys are compared, and their order may differ from the keys'.", name);
            checkOpen();
            return new EmptyKeyValueIterator();
        }
        byte[] lo = from == null ? KeyCodec.DATA_START : KeyCodec.encode(from.get());
        byte[] hi = to == null ? KeyCodec.DATA_END : KeyCodec.encodeSuccessor(to.get());
        return iterate(lo, hi, reverse, committed);
    }

    /**
     * An iterator over [lo, hi) of the stored keys: the buffer merged over the BloomStore, or with
     * {@code committed} the BloomStore alone. Takes no lock of the store: a query thread's scan does
     * not wait for the stream thread. The buffer's snapshot is taken before the BloomStore iterator
     * opens (see {@link BufferMergeCursor} for why a commit in between loses nothing).
     */
    KeyValueIterator<Bytes, byte[]> iterate(byte[] lo, byte[] hi, boolean reverse, boolean committed) {
        gate.enter();
        try {
            List<Map.Entry<byte[], byte[]>> buffered = committed ? List.of() : pending.snapshot(lo, hi, !reverse);
            StoreIterator inner = reverse ? store.reverseIterator(lo, hi) : store.iterator(lo, hi);
            return new BloomKeyValueIterator(gate, name, new BufferMergeCursor(buffered, inner, !reverse));
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

    /**
     * The bytes of buffered writes (keys, values and a per-entry overhead): Kafka commits early when
     * the stores' sum passes {@code statestore.uncommitted.max.bytes}.
     */
    @Override
    public long approximateNumUncommittedBytes() {
        return pending.bytes();
    }

    /**
     * Stores manage their changelog offsets, as Kafka's RocksDB store does: they are written into
     * the store in the same batch as the data they describe, so after a crash the recovered
     * offsets always match the recovered data (the store recovers a prefix of its batches).
     */
    @Override
    public boolean managesOffsets() {
        return true;
    }

    /**
     * Kafka's commit, called after the task's transaction (or offset commit) went through. In
     * transactional mode: the buffered writes, these offsets and the IQ position go to the
     * BloomStore in one atomic batch (unsynced: a crash may lose the last commits, never part of
     * one). In write-through mode the offsets wait for the buffer's next write-out. An empty map
     * removes every stored offset; a null offset removes that partition's.
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (!gate.isOpen()) {
            return;
        }
        offsets.record(changelogOffsets);
        if (mode.transactional()) {
            writeAllInGate();
        } else {
            maybeWriteThrough();
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

    /**
     * Write-through mode: writes the buffered data, offsets and IQ position to the BloomStore
     * (unsynced). Transactional mode: nothing, since only {@link #commit} may write. Kafka 4.4 calls
     * {@link #commit}, not this.
     */
    @Override
    @SuppressWarnings("deprecation")
    public synchronized void flush() {
        if (gate.isOpen() && !mode.transactional()) {
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
        committedPosition = position.copy();
    }

    /**
     * Closes the open iterators (waiting for a step in progress in another thread) and the
     * BloomStore; see {@link StoreGate}. Transactional mode drops the uncommitted writes (Kafka
     * commits before a clean close, so only a dirty close leaves any); write-through mode writes
     * them with the "closed" status ({@link OpenStatus}).
     */
    @Override
    public synchronized void close() {
        gate.close(() -> {
            try {
                if (mode.transactional()) {
                    pending.clear();
                } else {
                    writeAll(true);
                }
            } finally {
                if (metrics != null) {
                    metrics.remove();
                    metrics = null;
                }
                closeQuietly();
            }
        });
    }

    /**
     * Restores one batch of changelog records as one unsynced write; tombstones delete. Restored
     * records are committed ones (Kafka restores up to the last commit), so they go straight to the
     * BloomStore; Kafka commits the store's offsets as the restore goes.
     */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        WriteBatch batch = new WriteBatch();
        gate.enter();
        try {
            if (!pending.isEmpty() && !mode.transactional()) {
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
            if (pending.isEmpty()) {
                committedPosition = position.copy();
            }
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
