package io.bloomstore.kafka;

import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;

/**
 * The time-segmented engine under {@link BloomWindowStore} and {@link BloomSessionStore}, laid out
 * like Kafka's segmented RocksDB stores: an entry goes to segment {@code floor(time / interval)}
 * (time: a window's start, a session's end), and each segment is a keyspace of the store's one
 * BloomStore in {@code <dir>/store} ({@link Segment}), opened with the {@link SegmentKeys#PREFIX}
 * prefix extractor so one-key fetches skip tables through their prefix filters. The store keeps
 * the largest time it has seen (the observed stream time); entries older than
 * {@code streamTime − retention + 1} are invisible, and a segment wholly older than
 * {@code streamTime − retention} is dropped with its tables (its keyspace dropped): expiry never
 * writes a tombstone.
 *
 * <p>The BloomStore's default keyspace keeps the changelog offsets, the IQ position and the
 * observed stream time. Writes are buffered per segment ({@link PendingWrites}); scans merge each
 * segment's buffer over its keyspace ({@link SegmentCursor}), so no scan writes. In transactional
 * mode ({@link CommitMode}) the buffers reach the BloomStore only at {@link #commit}, which Kafka
 * calls after the task's transaction committed: every segment's buffer, the offsets, the position
 * and the stream time as one {@code WriteBatch} across the keyspaces, then the drop of the
 * segments the new stream time expired. A crash thus leaves the store exactly at a commit, in
 * every segment, and it opens without a wipe. Stream time advanced by uncommitted writes hides expired segments
 * from the stream thread at once, but drops them only at the commit. In write-through mode the
 * buffers are also written when they pass a size bound and at close, and under exactly_once_v2 a
 * store that was not closed cleanly refuses to open ({@link OpenStatus}). No write is synced: the
 * changelog is the source of truth.
 *
 * <p>Thread safety: writes are serialized on this object; reads and iterators run beside them
 * inside the {@link StoreGate}, whose close waits for them (see {@link StoreGate} for why no read
 * can touch a closed BloomStore). The segments' life cycle is {@link SegmentSet}'s: readers find
 * them in a concurrent map and pin them ({@link Segment#acquire()}) so expiry never closes one
 * under a reader.
 */
final class SegmentedStore {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedStore.class);
    private static final byte[] POSITION_KEY = KeyCodec.meta("position");
    private static final byte[] STREAM_TIME_KEY = KeyCodec.meta("stream-time");

    final String name;
    final StoreGate gate;
    private final String metricsScope;
    private final StoreOptions options;
    final long retentionPeriod;
    final long segmentInterval;
    /** The live segments; null before {@link #init}. */
    private SegmentSet segments;
    private final PendingOffsets offsets = new PendingOffsets();
    private final long maxPendingBytes;
    /** The store's BloomStore: the segments' keyspaces and, in the default keyspace, offsets, position and stream time. */
    private Store store;
    private Path dir;
    private StateStoreContext context;
    private Position position = Position.emptyPosition();
    /** The position as of the last commit, for {@code READ_COMMITTED} queries. */
    private volatile Position committedPosition = Position.emptyPosition();
    private CommitMode mode = CommitMode.TRANSACTIONAL;
    private boolean consistencyEnabled;
    private volatile long observedStreamTime = -1;
    /** The stream time as of the last commit: what {@code READ_COMMITTED} reads expire by. */
    private volatile long committedStreamTime = -1;
    private BloomStoreMetrics metrics;
    private Sensor droppedRecords;

    SegmentedStore(String name, String metricsScope, StoreOptions options, long retentionPeriod, long segmentInterval) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.metricsScope = metricsScope;
        this.gate = new StoreGate(name);
        this.options = options.toBuilder().prefixExtractor(SegmentKeys.PREFIX).build();
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.maxPendingBytes = Math.max(64 * 1024, Math.min(options.memtableBytes() / 2, 8L << 20));
    }

    /** Opens the BloomStore and the live segments, drops expired ones, registers the restore callback. */
    void init(StateStoreContext context, StateStore root, RecordBatchingStateRestoreCallback restore) {
        this.context = context;
        this.dir = new File(new File(context.stateDir(), BloomKeyValueStore.DIR), name).toPath();
        this.mode = CommitMode.of(context);
        try {
            Files.createDirectories(dir);
            deleteEarlierLayout();
            store = Store.open(dir.resolve("store"), options);
            segments = new SegmentSet(name, store, segmentInterval);
            byte[] stored = store.get(POSITION_KEY);
            position = stored == null ? Position.emptyPosition() : PositionCodec.decode(stored);
            byte[] time = store.get(STREAM_TIME_KEY);
            observedStreamTime = time == null ? -1 : ByteBuffer.wrap(time).getLong();
            committedStreamTime = observedStreamTime;
            committedPosition = position.copy();
            OpenStatus.open(store, context, name, mode);
            segments.openExisting(segmentId(observedStreamTime - retentionPeriod));
        } catch (TaskCorruptedException e) {
            closeAll();
            throw e;
        } catch (IOException | RuntimeException e) {
            closeAll();
            throw new ProcessorStateException("Error opening BloomStore " + name + " at " + dir, e);
        }
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        if (context.metrics() instanceof StreamsMetricsImpl impl) {
            droppedRecords = TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(),
                    context.taskId().toString(), impl);
        }
        gate.opened();
        metrics = BloomStoreMetrics.register(context, metricsScope, name, this::statsIfOpen);
        context.register(root, restore);
    }

    long segmentId(long time) {
        return Math.floorDiv(time, segmentInterval);
    }

    /**
     * The oldest time still visible: {@code streamTime − retention + 1}, by the stream time of every
     * write or, with {@code committed}, of the last commit.
     */
    long minVisibleTime(boolean committed) {
        long t = committed ? committedStreamTime : observedStreamTime;
        return t == -1 ? Long.MIN_VALUE : t - retentionPeriod + 1;
    }

    /** Whether reads at {@code level} go to the committed state (transactional mode only). */
    boolean committedReads(org.apache.kafka.common.IsolationLevel level) {
        return level == org.apache.kafka.common.IsolationLevel.READ_COMMITTED && mode.transactional();
    }

    /** The position a query at {@code level} is bounded by. */
    Position position(org.apache.kafka.common.IsolationLevel level) {
        return committedReads(level) ? committedPosition : position;
    }

    long observedStreamTime() {
        return observedStreamTime;
    }

    Position position() {
        return position;
    }

    StateStoreContext context() {
        return context;
    }

    /**
     * Buffers a put (a delete when {@code value} is null) of the entry at {@code time}: advances the
     * stream time, drops the segments it expires, and skips (counting a dropped record) an entry
     * whose segment has expired.
     */
    synchronized void put(long time, byte[] storedKey, byte[] value) {
        write(time, storedKey, value, true);
    }

    /** A delete that is silently nothing when the entry's segment has expired (a session's remove). */
    synchronized void remove(long time, byte[] storedKey) {
        write(time, storedKey, null, false);
    }

    private void write(long time, byte[] storedKey, byte[] value, boolean countExpired) {
        checkSizes(storedKey, value);
        gate.enter();
        try {
            observedStreamTime = Math.max(observedStreamTime, time);
            long id = segmentId(time);
            if (id < segmentId(observedStreamTime - retentionPeriod)) {
                if (countExpired) {
                    LOG.warn("Skipping record for expired segment.");
                    if (droppedRecords != null) {
                        droppedRecords.record();
                    }
                }
                return;
            }
            Segment s = segments.getOrCreate(id);
            StoreQueryUtils.updatePosition(position, context);
            s.pending.put(Bytes.wrap(storedKey), value);
            if (!mode.transactional()) {
                dropExpired();
                if (segments.pendingBytes() > maxPendingBytes) {
                    writeAll();
                }
            }
        } finally {
            gate.exit();
        }
    }

    /**
     * The value at {@code storedKey} of the entry at {@code time}, or null (absent or expired); with
     * {@code committed}, as of the last commit.
     */
    byte[] get(long time, byte[] storedKey, boolean committed) {
        gate.enter();
        try {
            if (time < minVisibleTime(committed)) {
                return null;
            }
            Segment s = segments.get(segmentId(time));
            if (s == null || !s.acquire()) {
                return null;
            }
            try {
                if (!committed) {
                    boolean[] buffered = new boolean[1];
                    byte[] v = s.pending.lookup(Bytes.wrap(storedKey), buffered);
                    if (buffered[0]) {
                        return v;
                    }
                }
                return s.get(storedKey);
            } finally {
                s.release();
            }
        } catch (IOException | UncheckedIOException e) {
            throw new ProcessorStateException("Error reading from BloomStore " + name, e);
        } finally {
            gate.exit();
        }
    }

    /**
     * An iterator over the segments of times [{@code fromTime}, {@code toTime}] (by segment id,
     * ascending or not), scanning [{@code lo}, {@code hi}) of each (null: open): {@code wrap} makes
     * it of a cursor, inside the gate. The cursor merges each segment's buffered writes in the
     * range with the segment's BloomStore, or with {@code committed} reads the BloomStores alone.
     */
    <T> T iterate(long fromTime, long toTime, boolean forward, byte[] lo, byte[] hi, boolean committed,
                  Function<SegmentCursor, T> wrap) {
        gate.enter();
        try {
            List<Segment> pinned = segments.pin(segmentId(fromTime), segmentId(toTime), forward);
            // A committed view reads every segment at one moment: a commit is one batch across them.
            // Other reads see each segment as the cursor reaches it, with its buffer (a write-through
            // store may write its buffers out while the cursor is open).
            Snapshot snapshot = committed && !pinned.isEmpty() ? store.snapshot() : null;
            return wrap.apply(new SegmentCursor(pinned, snapshot, forward, lo, hi, committed));
        } finally {
            gate.exit();
        }
    }

    /** Restores a batch of changelog records: each to its segment, with the offsets, as one batch. */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records,
                                   ToLongFunction<byte[]> timeOf, UnaryOperator<byte[]> storedKeyOf) {
        gate.enter();
        try {
            if (!segments.pendingIsEmpty() && !mode.transactional()) {
                writeAll();
            }
            // One batch across the segments and the offsets: a crash keeps the whole restored batch or none of it.
            WriteBatch batch = new WriteBatch();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(r, consistencyEnabled, position);
                long time = timeOf.applyAsLong(r.key());
                observedStreamTime = Math.max(observedStreamTime, time);
                long id = segmentId(time);
                if (id < segmentId(observedStreamTime - retentionPeriod)) {
                    continue;
                }
                Segment segment = segments.getOrCreate(id);
                byte[] key = storedKeyOf.apply(r.key());
                if (r.value() == null) {
                    batch.delete(segment.keyspace, key);
                } else {
                    batch.put(segment.keyspace, key, r.value());
                }
            }
            addMeta(batch, false);
            store.write(batch, WriteOptions.DEFAULT);
            offsets.clear();
            dropExpired();
            if (segments.pendingIsEmpty()) {
                committedStreamTime = observedStreamTime;
                committedPosition = position.copy();
            }
        } catch (IOException | UncheckedIOException e) {
            throw new ProcessorStateException("Error restoring a batch into BloomStore " + name, e);
        } finally {
            gate.exit();
        }
    }

    /** Kafka's commit: see the class comment for what each mode writes. */
    synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (!gate.isOpen()) {
            return;
        }
        offsets.record(changelogOffsets);
        if (mode.transactional() || segments.pendingBytes() > maxPendingBytes) {
            writeAllInGate();
        }
    }

    synchronized Long committedOffset(TopicPartition partition) {
        gate.enter();
        try {
            return offsets.committed(partition, store, name);
        } finally {
            gate.exit();
        }
    }

    /** Write-through mode: writes the buffers out. Transactional mode: nothing (only a commit writes). */
    synchronized void flush() {
        if (gate.isOpen() && !mode.transactional()) {
            writeAllInGate();
        }
    }

    long approximateNumUncommittedBytes() {
        return segments.pendingBytes();
    }

    /**
     * Closes the iterators (waiting for steps in flight) and every BloomStore. Transactional mode
     * drops the uncommitted writes (Kafka commits before a clean close); write-through mode writes
     * them with the "closed" status.
     */
    synchronized void close() {
        gate.close(() -> {
            try {
                if (mode.transactional()) {
                    for (Segment s : segments.all()) {
                        s.pending.clear();
                    }
                } else {
                    writeAll(true);
                }
            } finally {
                if (metrics != null) {
                    metrics.remove();
                    metrics = null;
                }
                closeAll();
            }
        });
    }

    /** The statistics of each live segment's BloomStore, oldest first. */
    List<StoreStats> segmentStats() {
        gate.enter();
        try {
            return segments.stats();
        } finally {
            gate.exit();
        }
    }

    /**
     * For crash tests: writes every memtable to a table and waits for the background compactions
     * and file deletions, so a copy of the directory taken next is one the store could have left.
     */
    synchronized void settle() throws IOException {
        gate.enter();
        try {
            store.flush();
            store.awaitCompactions();
        } finally {
            gate.exit();
        }
    }

    /** The BloomStore's keyspaces (the default one, then the segments'): for tests. */
    List<String> keyspaces() {
        gate.enter();
        try {
            return store.keyspaces();
        } finally {
            gate.exit();
        }
    }

    /** Live segments' ids, oldest first: for tests. */
    List<Long> segmentIds() {
        SegmentSet s = segments;
        return s == null ? List.of() : s.ids();
    }

    Path directory() {
        return dir;
    }

    private List<StoreStats> statsIfOpen() {
        if (!gate.isOpen()) {
            return null;
        }
        try {
            return segmentStats();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Drops every segment wholly older than {@code streamTime − retention}. */
    private void dropExpired() {
        segments.dropBefore(segmentId(observedStreamTime - retentionPeriod));
    }

    private void writeAllInGate() {
        gate.enter();
        try {
            writeAll();
        } finally {
            gate.exit();
        }
    }

    private void writeAll() {
        writeAll(false);
    }

    /**
     * The buffered writes of every segment, then offsets, position and stream time; {@code closing}
     * also marks the store closed cleanly ({@link OpenStatus}).
     */
    private void writeAll(boolean closing) {
        try {
            long minLive = segmentId(observedStreamTime - retentionPeriod);
            WriteBatch batch = new WriteBatch();
            for (Segment s : segments.all()) {
                if (s.id >= minLive) {
                    s.pending.addTo(batch, s.keyspace);
                }
                // An expired segment's writes are not written: it is dropped below, after the batch.
            }
            addMeta(batch, closing);
            store.write(batch, WriteOptions.DEFAULT);
            for (Segment s : segments.all()) {
                s.pending.clear();
            }
            offsets.clear();
            committedStreamTime = observedStreamTime;
            committedPosition = position.copy();
            dropExpired();
        } catch (IOException | UncheckedIOException e) {
            throw new ProcessorStateException("Error writing to BloomStore " + name, e);
        }
    }

    /** Adds the offsets, position and stream time (and with {@code closing} the closed status) to {@code batch}. */
    private void addMeta(WriteBatch batch, boolean closing) throws IOException {
        if (closing) {
            OpenStatus.closeIn(batch);
        }
        offsets.addTo(batch, store);
        batch.put(POSITION_KEY, PositionCodec.encode(position));
        batch.put(STREAM_TIME_KEY, ByteBuffer.allocate(Long.BYTES).putLong(observedStreamTime).array());
    }

    /**
     * Deletes what an earlier build of this store left: a BloomStore per segment
     * ({@code segment-<start>}) beside one for the offsets ({@code meta}). With no offsets in the
     * new store, Kafka restores it from the changelog.
     */
    private void deleteEarlierLayout() throws IOException {
        List<Path> old = new ArrayList<>();
        try (var list = Files.list(dir)) {
            for (Path p : list.toList()) {
                String n = p.getFileName().toString();
                if (Files.isDirectory(p) && (n.equals("meta") || Segment.startOf(n) != null)) {
                    old.add(p);
                }
            }
        }
        for (Path p : old) {
            LOG.warn("Deleting {}: BloomStore {} now keeps its segments as keyspaces of one store; Kafka restores "
                    + "it from the changelog", p, name);
            try (var files = Files.walk(p)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    private void checkSizes(byte[] storedKey, byte[] value) {
        if (storedKey.length > options.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + storedKey.length + " bytes (escaped, with its times) is"
                    + " over the store's maximum of " + options.maxKeyBytes() + " (StoreOptions.maxKeyBytes)");
        }
        if (value != null && value.length > options.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the store's maximum of "
                    + options.maxValueBytes() + " (StoreOptions.maxValueBytes)");
        }
    }

    /** Closes the segments and the BloomStore, keeping its files. */
    private void closeAll() {
        if (segments != null) {
            segments.closeAll();
        }
        if (store != null) {
            try {
                store.close();
            } catch (IOException | RuntimeException e) {
                throw new ProcessorStateException("Error closing BloomStore " + name, e);
            } finally {
                store = null;
            }
        }
    }
}
