package io.bloomstore.core.db;

import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.memtable.InternalKey;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableLookup;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store's engine behind {@link Store}: write path (group commit into the WAL, then the
 * memtable), memtable switching and the background flush, the read path, iterators, snapshots and
 * close. Opening and recovery are in {@link StoreOpener}. See {@code docs/architecture.md}.
 *
 * <p>Thread safety: safe for concurrent use. One lock (the {@link WriteQueue}'s mutex) guards the writer
 * queue, memtable switches and installing flush results; WAL writes and memtable inserts happen
 * outside it, by the group's leader only; reads take no lock at all: they read the
 * {@link ReadView} and the published sequence number, both volatile.
 */
public final class DbImpl implements Store {
    /** Immutable memtables waiting for the flush thread before writers must wait. */
    private static final int MAX_IMMUTABLES = 2;

    private final FileSystem fs;
    private final Path dir;
    private final StoreOptions options;
    private final StoreCounters counters;
    private final VersionSet versions;
    private final TableRegistry tables;
    private final Closeable lock;
    private final WriteQueue queue;
    private final Set<SnapshotImpl> snapshots = ConcurrentHashMap.newKeySet();
    private final ExecutorService flusher;
    private final ReentrantLock mutex;

    private volatile ReadView view;
    private volatile long lastSequence;
    private volatile IOException backgroundError;
    private volatile boolean closed;
    private LogWriter wal;

    DbImpl(FileSystem fs, Path dir, StoreOptions options, StoreCounters counters, VersionSet versions,
           TableRegistry tables, Closeable lock, long walNumber, LogWriter wal, long lastSequence) {
        this.fs = fs;
        this.dir = dir;
        this.options = options;
        this.counters = counters;
        this.versions = versions;
        this.tables = tables;
        this.lock = lock;
        this.wal = wal;
        this.lastSequence = lastSequence;
        this.view = new ReadView(new MemTable(walNumber), List.of(), versions.current());
        this.queue = new WriteQueue();
        this.mutex = queue.mutex();
        this.flusher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "bloomstore-flush-" + dir.getFileName());
            t.setDaemon(true);
            return t;
        });
    }

    /** Opens or creates the store in {@code dir}; see {@link Store#open(FileSystem, Path, StoreOptions)}. */
    public static Store open(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        return StoreOpener.open(fs, dir, options);
    }

    // ---- writes ----

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        put(key, value, WriteOptions.DEFAULT);
    }

    @Override
    public void put(byte[] key, byte[] value, WriteOptions writeOptions) throws IOException {
        write(new WriteBatch().put(key, value), writeOptions);
    }

    @Override
    public void delete(byte[] key) throws IOException {
        delete(key, WriteOptions.DEFAULT);
    }

    @Override
    public void delete(byte[] key, WriteOptions writeOptions) throws IOException {
        write(new WriteBatch().delete(key), writeOptions);
    }

    @Override
    public void write(WriteBatch batch, WriteOptions writeOptions) throws IOException {
        checkOpen();
        if (batch == null || writeOptions == null) {
            throw new IllegalArgumentException("batch and write options must not be null");
        }
        batch.forEach(new WriteBatch.Handler() {
            @Override
            public void put(byte[] key, byte[] value) {
                checkKey(key);
                if (value.length > options.maxValueBytes()) {
                    throw new IllegalArgumentException("value of " + value.length + " bytes is over the maximum of "
                            + options.maxValueBytes() + " bytes (StoreOptions.maxValueBytes)");
                }
            }

            @Override
            public void delete(byte[] key) {
                checkKey(key);
            }
        });
        if (batch.count() == 0) {
            return;
        }
        queue.submit(batch, writeOptions.sync(), this::commitGroup);
    }

    /**
     * Called by a group's leader with the mutex held: makes room, assigns sequence numbers, then
     * (mutex released) writes the group to the WAL, syncs once if any writer asked, inserts into
     * the memtable and finally publishes the new last sequence.
     */
    private void commitGroup(List<WriteQueue.Writer> group) throws IOException {
        makeRoomForWrite(false);
        MemTable mem = view.mem();
        LogWriter log = wal;
        long first = lastSequence + 1;
        long seq = first;
        boolean sync = false;
        long[] starts = new long[group.size()];
        for (int i = 0; i < group.size(); i++) {
            starts[i] = seq;
            seq += group.get(i).batch().count();
            sync |= group.get(i).sync();
        }
        long last = seq - 1;
        boolean doSync = sync;
        queue.unlocked(() -> {
            try {
                for (int i = 0; i < group.size(); i++) {
                    log.addRecord(BatchCodec.encode(group.get(i).batch(), starts[i]));
                }
                if (doSync) {
                    log.sync();
                }
            } catch (IOException e) {
                // The WAL's state is unknown now: refuse all further writes rather than risk a hole.
                backgroundError = e;
                throw e;
            }
            for (int i = 0; i < group.size(); i++) {
                long s = starts[i];
                long[] next = {s};
                group.get(i).batch().forEach(new WriteBatch.Handler() {
                    @Override
                    public void put(byte[] key, byte[] value) {
                        mem.add(key, next[0]++, ValueType.VALUE, value);
                    }

                    @Override
                    public void delete(byte[] key) {
                        mem.add(key, next[0]++, ValueType.DELETION, new byte[0]);
                    }
                });
            }
        });
        lastSequence = last;
    }

    /** With the mutex held: switches to a new memtable when the current one is full (or forced). */
    private void makeRoomForWrite(boolean force) throws IOException {
        while (true) {
            IOException bg = backgroundError;
            if (bg != null) {
                throw new IOException("store refuses writes after an earlier failure: " + bg.getMessage(), bg);
            }
            ReadView v = view;
            if (force ? v.mem().isEmpty() : v.mem().approximateBytes() < options.memtableBytes()) {
                return;
            }
            if (v.immutables().size() >= MAX_IMMUTABLES) {
                queue.awaitChange();
                continue;
            }
            long walNumber = versions.newFileNumber();
            LogWriter next = null;
            try {
                next = new LogWriter(fs.create(FileNames.wal(dir, walNumber)), LogFormat.WAL_MAGIC);
                // Sync the finished segment so a crash can never keep a newer segment but lose an older one.
                wal.sync();
            } catch (IOException e) {
                // Like every write-path I/O failure this makes the store read-only: after a failed
                // sync what the old segment holds is unknown, and writing on could leave a hole.
                backgroundError = e;
                if (next != null) {
                    next.close();
                }
                throw e;
            }
            wal.close();
            wal = next;
            List<MemTable> imm = new ArrayList<>(v.immutables());
            imm.add(v.mem());
            view = new ReadView(new MemTable(walNumber), List.copyOf(imm), v.version());
            flusher.execute(this::flushOldest);
            force = false;
        }
    }

    // ---- flush ----

    /** Flush thread: writes the oldest immutable memtable as a level-0 table and records it. */
    private void flushOldest() {
        if (backgroundError != null) {
            // An earlier flush failed and may have left a torn MANIFEST edit: append nothing more.
            return;
        }
        MemTable m = view.immutables().get(0);
        try {
            FileMetaData meta = writeLevel0Table(m);
            mutex.lock();
            try {
                ReadView v = view;
                long logNumber = v.immutables().size() > 1 ? v.immutables().get(1).logNumber() : v.mem().logNumber();
                VersionEdit edit = new VersionEdit().setLogNumber(logNumber).setLastSequence(lastSequence);
                if (meta != null) {
                    edit.addFile(0, meta);
                }
                Version next = versions.logAndApply(edit);
                view = new ReadView(v.mem(), List.copyOf(v.immutables().subList(1, v.immutables().size())), next);
                counters.flushes.increment();
                deleteObsoleteFiles(logNumber);
                queue.signalChange();
            } finally {
                mutex.unlock();
            }
        } catch (IOException | RuntimeException e) {
            mutex.lock();
            try {
                backgroundError = e instanceof IOException io ? io : new IOException("flush failed", e);
                queue.signalChange();
            } finally {
                mutex.unlock();
            }
        }
    }

    /** Writes a memtable's entries, every version and tombstone, as a table; null when empty. */
    FileMetaData writeLevel0Table(MemTable m) throws IOException {
        if (m.isEmpty()) {
            return null;
        }
        long number = versions.newFileNumber();
        TableBuilder builder = new TableBuilder(fs, dir, number, options.tableOptions());
        TableMetadata t;
        try (InternalIterator it = m.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                builder.add(it.key(), it.sequence(), it.type(), it.value());
            }
            t = builder.finish();
        } catch (IOException | RuntimeException e) {
            builder.abandon();
            throw e;
        }
        tables.open(number);
        return new FileMetaData(t.fileNumber(), t.fileSize(), t.filterFileSize(), t.smallestUserKey(),
                t.largestUserKey(), t.entries(), t.smallestSeq(), t.largestSeq());
    }

    /**
     * Recovery's last step, before the store is handed out: writes what was replayed from the WAL
     * as a level-0 table, records that the new WAL is the only one needed, and deletes what a
     * crash may have left behind.
     */
    void finishRecovery(MemTable replayed) throws IOException {
        FileMetaData meta = writeLevel0Table(replayed);
        VersionEdit edit = new VersionEdit().setLogNumber(view.mem().logNumber()).setLastSequence(lastSequence);
        if (meta != null) {
            edit.addFile(0, meta);
            counters.flushes.increment();
        }
        Version v = versions.logAndApply(edit);
        view = new ReadView(view.mem(), List.of(), v);
        deleteObsoleteFiles(view.mem().logNumber());
    }

    /**
     * Deletes WAL segments below {@code logNumber}, tables the current version does not hold and
     * stale MANIFESTs. Runs only on the flush thread or during recovery, the only writers of
     * tables, so no table being written can be mistaken for an orphan.
     */
    private void deleteObsoleteFiles(long logNumber) throws IOException {
        Set<Long> live = new HashSet<>();
        view.version().allFiles().forEach(f -> live.add(f.fileNumber()));
        for (String name : fs.list(dir)) {
            FileNames.Parsed p = FileNames.parse(name);
            if (p == null) {
                continue;
            }
            boolean obsolete = switch (p.kind()) {
                case WAL -> p.number() < logNumber;
                case TABLE, FILTER -> !live.contains(p.number());
                case MANIFEST -> p.number() != versions.manifestNumber();
                case TEMP -> true;
                default -> false;
            };
            if (obsolete) {
                fs.delete(dir.resolve(name));
            }
        }
    }

    @Override
    public void flush() throws IOException {
        checkOpen();
        queue.submitBarrier(group -> {
            makeRoomForWrite(true);
            while (!view.immutables().isEmpty() && backgroundError == null) {
                queue.awaitChange();
            }
            if (backgroundError != null) {
                throw new IOException("flush failed: " + backgroundError.getMessage(), backgroundError);
            }
        });
    }

    // ---- reads ----

    @Override
    public byte[] get(byte[] key) throws IOException {
        return get(key, ReadOptions.DEFAULT);
    }

    @Override
    public byte[] get(byte[] key, ReadOptions readOptions) throws IOException {
        checkOpen();
        checkKey(key);
        long snapshot = snapshotSequence(readOptions);
        ReadView v = view;
        counters.gets.increment();
        Map.Entry<InternalKey, byte[]> e = v.mem().get(key, snapshot);
        for (int i = v.immutables().size() - 1; e == null && i >= 0; i--) {
            e = v.immutables().get(i).get(key, snapshot);
        }
        if (e != null) {
            return e.getKey().type() == ValueType.VALUE ? e.getValue().clone() : null;
        }
        Version version = v.version();
        for (FileMetaData f : version.files(0)) {
            if (f.covers(key)) {
                TableLookup r = lookup(f, key, snapshot);
                if (r != null) {
                    return r.type() == ValueType.VALUE ? r.value() : null;
                }
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            FileMetaData f = version.candidate(level, key);
            if (f != null) {
                TableLookup r = lookup(f, key, snapshot);
                if (r != null) {
                    return r.type() == ValueType.VALUE ? r.value() : null;
                }
            }
        }
        return null;
    }

    private TableLookup lookup(FileMetaData f, byte[] key, long snapshot) throws IOException {
        TableHandle h = tables.acquire(f.fileNumber());
        try {
            return h.reader().get(key, snapshot);
        } finally {
            h.release();
        }
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to) {
        return iterator(from, to, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to, ReadOptions readOptions) {
        return newIterator(from, to, readOptions, false);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to) {
        return reverseIterator(from, to, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to, ReadOptions readOptions) {
        return newIterator(from, to, readOptions, true);
    }

    private StoreIterator newIterator(byte[] from, byte[] to, ReadOptions readOptions, boolean reverse) {
        checkOpen();
        long snapshot = snapshotSequence(readOptions);
        ReadView v = view;
        List<InternalIterator> sources = new ArrayList<>();
        List<TableHandle> pinned = new ArrayList<>();
        try {
            sources.add(v.mem().iterator());
            v.immutables().forEach(m -> sources.add(m.iterator()));
            for (FileMetaData f : v.version().allFiles()) {
                if (f.overlaps(from, to)) {
                    TableHandle h = tables.acquire(f.fileNumber());
                    pinned.add(h);
                    sources.add(h.reader().iterator());
                }
            }
            return new DbIterator(sources, pinned, from, to, snapshot, reverse);
        } catch (IOException | RuntimeException e) {
            pinned.forEach(TableHandle::release);
            throw e instanceof IOException io ? new java.io.UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    @Override
    public Snapshot snapshot() {
        checkOpen();
        return new SnapshotImpl(lastSequence, snapshots);
    }

    private long snapshotSequence(ReadOptions readOptions) {
        if (readOptions == null) {
            throw new IllegalArgumentException("read options must not be null (use ReadOptions.DEFAULT)");
        }
        return readOptions.snapshot() == null ? lastSequence : readOptions.snapshot().sequence();
    }

    // ---- stats, close ----

    @Override
    public StoreStats stats() {
        Version v = view.version();
        List<StoreStats.LevelStats> levels = new ArrayList<>();
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            long bytes = 0;
            long filterBytes = 0;
            for (FileMetaData f : v.files(level)) {
                bytes += f.fileSize();
                filterBytes += f.filterFileSize();
            }
            levels.add(new StoreStats.LevelStats(level, v.files(level).size(), bytes, filterBytes));
        }
        return new StoreStats(counters.gets.sum(), counters.filterNegatives.sum(), counters.filterPositives.sum(),
                counters.filterTruePositives.sum(), counters.measuredFpr(), options.configuredFpr(),
                counters.dataBlockReads.sum(), counters.bytesRead.sum(), counters.blockCacheHits.sum(),
                counters.blockCacheMisses.sum(), counters.flushes.sum(), List.copyOf(levels), tables.filterBytes());
    }

    @Override
    public StoreOptions options() {
        return options;
    }

    @Override
    public void close() throws IOException {
        mutex.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            queue.closeAndDrain();
        } finally {
            mutex.unlock();
        }
        flusher.shutdown();
        try {
            flusher.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        mutex.lock();
        try {
            if (backgroundError == null) {
                wal.sync();
            }
            wal.close();
            versions.close();
        } finally {
            mutex.unlock();
            tables.closeAll();
            lock.close();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store " + dir + " is closed");
        }
    }

    private void checkKey(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("key must not be null or empty");
        }
        if (key.length > options.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is over the maximum of "
                    + options.maxKeyBytes() + " bytes (StoreOptions.maxKeyBytes)");
        }
    }
}
