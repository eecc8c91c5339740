package io.bloomstore.core.db;

import io.bloomstore.bloom.Filters;
import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.LevelShape;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.compaction.Compaction;
import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.compaction.CompactionPicker;
import io.bloomstore.core.compaction.ShadowedVersions;
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
import io.bloomstore.core.stats.LevelCounters;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableLookup;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * memtable), memtable switching, backpressure, the background flush and compaction, the read path,
 * iterators, snapshots and close. Opening and recovery are in {@link StoreOpener}; what to compact
 * and how is in {@code core.compaction}. See {@code docs/architecture.md}.
 *
 * <p>Thread safety: safe for concurrent use. One lock (the {@link WriteQueue}'s mutex) guards the
 * writer queue, memtable switches, the snapshot list and installing flush and compaction results;
 * WAL writes and memtable inserts happen outside it, by the group's leader only. A second lock
 * lets one compaction run at a time (background or {@link #compact()}); it is never taken while
 * holding the mutex. Reads take no lock at all: they retain the {@link ReadView}'s tables and
 * read the published sequence number, both volatile.
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
    private final ExecutorService compactor;
    private final ReentrantLock mutex;
    private final ReentrantLock compactionLock = new ReentrantLock();
    private final CompactionPicker picker;
    /** A background compaction is queued or running; guarded by the mutex. */
    private boolean compactionScheduled;

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
        this.view = new ReadView(new MemTable(walNumber), List.of(), new VersionRef(versions.current(), tables));
        this.queue = new WriteQueue();
        this.mutex = queue.mutex();
        this.picker = new CompactionPicker(options);
        this.flusher = daemon("bloomstore-flush-" + dir.getFileName());
        this.compactor = daemon("bloomstore-compact-" + dir.getFileName());
    }

    private static ExecutorService daemon(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
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
        long[] userBytes = {0};
        batch.forEach(new WriteBatch.Handler() {
            @Override
            public void put(byte[] key, byte[] value) {
                checkKey(key);
                userBytes[0] += key.length + value.length;
                if (value.length > options.maxValueBytes()) {
                    throw new IllegalArgumentException("value of " + value.length + " bytes is over the maximum of "
                            + options.maxValueBytes() + " bytes (StoreOptions.maxValueBytes)");
                }
            }

            @Override
            public void delete(byte[] key) {
                checkKey(key);
                userBytes[0] += key.length;
            }
        });
        if (batch.count() == 0) {
            return;
        }
        queue.submit(batch, writeOptions.sync(), this::commitGroup);
        counters.userBytesWritten.add(userBytes[0]);
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

    /**
     * With the mutex held: switches to a new memtable when the current one is full (or forced).
     * Backpressure (with background compaction on): once level 0 holds {@code l0SlowdownTrigger}
     * tables the group is delayed by 1 ms, once, spreading the wait over many writes; at
     * {@code l0StopTrigger} tables, or with {@link #MAX_IMMUTABLES} memtables waiting for the
     * flush thread, a full memtable is not switched until compaction or flush catches up.
     */
    private void makeRoomForWrite(boolean force) throws IOException {
        boolean allowDelay = !force && options.autoCompaction();
        while (true) {
            IOException bg = backgroundError;
            if (bg != null) {
                throw new IOException("store refuses writes after an earlier failure: " + bg.getMessage(), bg);
            }
            ReadView v = view;
            int level0 = v.version().files(0).size();
            if (allowDelay && level0 >= options.l0SlowdownTrigger()) {
                allowDelay = false;
                counters.writeSlowdowns.increment();
                queue.unlocked(DbImpl::pause);
                continue;
            }
            if (force ? v.mem().isEmpty() : v.mem().approximateBytes() < options.memtableBytes()) {
                return;
            }
            if (v.immutables().size() >= MAX_IMMUTABLES) {
                queue.awaitChange();
                continue;
            }
            if (options.autoCompaction() && level0 >= options.l0StopTrigger()) {
                counters.writeStops.increment();
                maybeScheduleCompaction();
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
            view = new ReadView(new MemTable(walNumber), List.copyOf(imm), v.tables());
            flusher.execute(this::flushOldest);
            force = false;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * With the mutex held: makes {@code next} the current version under a new view with the given
     * memtables, and lets go of the previous version's tables.
     */
    private void installVersion(Version next, MemTable mem, List<MemTable> immutables) {
        ReadView old = view;
        view = new ReadView(mem, immutables, new VersionRef(next, tables));
        old.tables().release();
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
                installVersion(next, v.mem(), List.copyOf(v.immutables().subList(1, v.immutables().size())));
                counters.flushes.increment();
                if (meta != null) {
                    counters.flushBytesWritten.add(meta.fileSize() + meta.filterFileSize());
                }
                deleteObsoleteFiles(logNumber, false);
                maybeScheduleCompaction();
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
        FilterChoice filter = options.filterPolicy().choose(0, levelShape(versions.current()).plus(0, m.entries()));
        TableBuilder builder = new TableBuilder(fs, dir, number, filter.apply(options.tableOptions()));
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
        tables.open(number, 0);
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
            counters.flushBytesWritten.add(meta.fileSize() + meta.filterFileSize());
        }
        Version v = versions.logAndApply(edit);
        installVersion(v, view.mem(), List.of());
        deleteObsoleteFiles(view.mem().logNumber(), true);
        mutex.lock();
        try {
            maybeScheduleCompaction();
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Deletes WAL segments below {@code logNumber} and stale MANIFESTs; with {@code orphans} (at
     * recovery, before any flush or compaction thread runs) also tables the current version does
     * not hold, left by a crash during a flush or compaction. Tables a compaction replaced are
     * deleted by their {@link TableHandle} once no reader holds them.
     */
    private void deleteObsoleteFiles(long logNumber, boolean orphans) throws IOException {
        Set<Long> live = new HashSet<>();
        view.version().allFiles().forEach(f -> live.add(f.fileNumber()));
        for (String name : fs.list(dir)) {
            FileNames.Parsed p = FileNames.parse(name);
            if (p == null) {
                continue;
            }
            boolean obsolete = switch (p.kind()) {
                case WAL -> p.number() < logNumber;
                case TABLE, FILTER -> orphans && !live.contains(p.number()) && !tables.holds(p.number());
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

    // ---- compaction ----

    /** With the mutex held: queues a background compaction when a level needs one and none is queued. */
    private void maybeScheduleCompaction() {
        if (closed || compactionScheduled || !options.autoCompaction() || backgroundError != null
                || !picker.needsCompaction(versions.current())) {
            return;
        }
        compactionScheduled = true;
        compactor.execute(this::backgroundCompaction);
    }

    /** Compaction thread: runs the compaction the picker chooses, then schedules the next if needed. */
    private void backgroundCompaction() {
        try {
            compactionLock.lock();
            try {
                Compaction c = closed ? null : picker.pick(versions.current());
                if (c != null) {
                    runCompaction(c);
                }
            } finally {
                compactionLock.unlock();
            }
        } catch (IOException | RuntimeException e) {
            compactionFailed(e);
        } finally {
            mutex.lock();
            try {
                compactionScheduled = false;
                maybeScheduleCompaction();
                queue.signalChange();
            } finally {
                mutex.unlock();
            }
        }
    }

    /**
     * A failed compaction, background or {@link #compact()}, makes the store read-only as a failed
     * flush does: its MANIFEST edit may be torn, and nothing may be appended after it.
     */
    private void compactionFailed(Exception e) {
        mutex.lock();
        try {
            backgroundError = e instanceof IOException io ? io : new IOException("compaction failed", e);
            queue.signalChange();
        } finally {
            mutex.unlock();
        }
    }

    @Override
    public void awaitCompactions() throws IOException {
        checkOpen();
        mutex.lock();
        try {
            while (!closed && backgroundError == null && (compactionScheduled
                    || options.autoCompaction() && picker.needsCompaction(versions.current()))) {
                queue.awaitChange();
            }
            if (backgroundError != null) {
                throw new IOException("background work failed: " + backgroundError.getMessage(), backgroundError);
            }
        } finally {
            mutex.unlock();
        }
    }

    @Override
    public void compact() throws IOException {
        checkOpen();
        flush();
        compactionLock.lock();
        try {
            Version v = versions.current();
            int bottom = 1;
            for (int level = 1; level < Version.NUM_LEVELS; level++) {
                if (!v.files(level).isEmpty()) {
                    bottom = level;
                }
            }
            boolean bottomRewritten = false;
            for (int level = 0; level <= bottom; level++) {
                checkOpen();
                if (backgroundError != null) {
                    throw new IOException("compaction refused after an earlier failure: " + backgroundError.getMessage(),
                            backgroundError);
                }
                // The bottom level is rewritten in place unless a merge from above already took all of
                // it, so garbage there (versions of released snapshots) goes too.
                Compaction c = level < bottom ? picker.whole(versions.current(), level)
                        : bottomRewritten ? null : picker.inPlace(versions.current(), level);
                if (c != null) {
                    // The bottom counts as rewritten only when every one of its tables was an input:
                    // tables outside the merged key range may still hold garbage.
                    boolean wholeBottom = c.outputLevel() == bottom
                            && (c.level() == bottom ? c.inputs() : c.nextInputs()).size()
                            == versions.current().files(bottom).size();
                    try {
                        runCompaction(c);
                    } catch (IOException | RuntimeException e) {
                        compactionFailed(e);
                        throw e;
                    }
                    bottomRewritten = wholeBottom;
                }
            }
        } finally {
            compactionLock.unlock();
        }
    }

    /**
     * With the compaction lock held: merges the compaction's inputs into new tables at its output
     * level (filters chosen by the policy for that level), then installs the result with one
     * MANIFEST edit. The replaced tables leave the live set at once and are closed, unmapped and
     * deleted when their last reader lets go.
     */
    private void runCompaction(Compaction c) throws IOException {
        long[] snapshotSequences;
        mutex.lock();
        try {
            snapshotSequences = snapshots.stream().mapToLong(SnapshotImpl::pinnedSequence).toArray();
        } finally {
            mutex.unlock();
        }
        long moved = c.inputs().stream().mapToLong(FileMetaData::entries).sum();
        long[] entries = levelShape(versions.current()).entries();
        entries[c.level()] -= moved;
        entries[c.outputLevel()] += moved;
        LevelShape shape = new LevelShape(entries, hitRatios(), probeCounts());
        TableOptions tableOptions = options.filterPolicy().choose(c.outputLevel(), shape).apply(options.tableOptions());
        int outputLevel = c.outputLevel();
        CompactionJob job = new CompactionJob(c, new ShadowedVersions(snapshotSequences, c.bottommost()),
                options.targetFileBytes());
        List<TableHandle> inputs = new ArrayList<>();
        List<InternalIterator> sources = new ArrayList<>();
        try {
            for (FileMetaData f : c.allInputs()) {
                TableHandle h = tables.acquire(f.fileNumber());
                inputs.add(h);
                sources.add(h.reader().iterator());
            }
            job.run(MergingIterator.forward(sources, null), new CompactionJob.Output() {
                @Override
                public TableBuilder newTable() throws IOException {
                    return new TableBuilder(fs, dir, versions.newFileNumber(), tableOptions);
                }

                @Override
                public void finished(TableMetadata table) throws IOException {
                    tables.open(table.fileNumber(), outputLevel);
                }
            });
        } catch (IOException | RuntimeException e) {
            job.outputs().forEach(f -> tables.drop(f.fileNumber(), true));
            throw e;
        } finally {
            closeAll(sources);
            inputs.forEach(TableHandle::release);
        }
        mutex.lock();
        try {
            Version next;
            try {
                next = versions.logAndApply(c.edit(job.outputs()));
            } catch (IOException | RuntimeException e) {
                // The edit may have reached the MANIFEST (a failed fsync says nothing about what the
                // file holds), so the outputs must stay on disk: recovery deletes them as orphans
                // when the edit did not survive.
                job.outputs().forEach(f -> tables.drop(f.fileNumber(), false));
                throw e;
            }
            ReadView v = view;
            installVersion(next, v.mem(), v.immutables());
            c.allInputs().forEach(f -> tables.drop(f.fileNumber(), true));
            counters.compactions.increment();
            counters.compactionBytesRead.add(c.inputBytes());
            counters.compactionBytesWritten.add(job.bytesWritten());
            queue.signalChange();
        } finally {
            mutex.unlock();
        }
    }

    private static void closeAll(List<InternalIterator> sources) throws IOException {
        IOException failure = null;
        for (InternalIterator it : sources) {
            try {
                it.close();
            } catch (IOException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The entries per level of {@code v} with the measured hit ratios: what a filter policy decides on. */
    private LevelShape levelShape(Version v) {
        long[] entries = new long[Version.NUM_LEVELS];
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : v.files(level)) {
                entries[level] += f.entries();
            }
        }
        return new LevelShape(entries, hitRatios(), probeCounts());
    }

    private double[] hitRatios() {
        double[] r = new double[Version.NUM_LEVELS];
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            r[level] = counters.level(level).hitRatio();
        }
        return r;
    }

    private long[] probeCounts() {
        long[] p = new long[Version.NUM_LEVELS];
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            p[level] = counters.level(level).probes.sum();
        }
        return p;
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
        checkReadOptions(readOptions);
        ReadView v = retainView();
        try {
            long snapshot = sequenceFor(readOptions, v);
            if (snapshot < 0) {
                return get(key, readOptions);
            }
            return get(v, key, snapshot);
        } finally {
            v.tables().release();
        }
    }

    private byte[] get(ReadView v, byte[] key, long snapshot) throws IOException {
        counters.gets.increment();
        Map.Entry<InternalKey, byte[]> e = v.mem().get(key, snapshot);
        for (int i = v.immutables().size() - 1; e == null && i >= 0; i--) {
            e = v.immutables().get(i).get(key, snapshot);
        }
        if (e != null) {
            return e.getKey().type() == ValueType.VALUE ? e.getValue().clone() : null;
        }
        Version version = v.version();
        // One hash of the key serves every table's filter.
        long hash = Filters.hash(key);
        for (FileMetaData f : version.files(0)) {
            if (f.covers(key)) {
                TableLookup r = lookup(v, 0, f, key, hash, snapshot);
                if (r != null) {
                    return r.type() == ValueType.VALUE ? r.value() : null;
                }
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            FileMetaData f = version.candidate(level, key);
            if (f != null) {
                TableLookup r = lookup(v, level, f, key, hash, snapshot);
                if (r != null) {
                    return r.type() == ValueType.VALUE ? r.value() : null;
                }
            }
        }
        return null;
    }

    /** Looks in one table, counting the probe and its outcome for the level's hit ratio. */
    private TableLookup lookup(ReadView v, int level, FileMetaData f, byte[] key, long hash, long snapshot)
            throws IOException {
        LevelCounters lc = counters.level(level);
        lc.probes.increment();
        TableLookup r = v.tables().handle(f.fileNumber()).reader().get(key, hash, snapshot);
        if (r != null) {
            lc.hits.increment();
        }
        return r;
    }

    /** The current view with its tables retained; the caller releases {@code tables()}. */
    private ReadView retainView() {
        while (true) {
            ReadView v = view;
            if (v.tables().retain()) {
                return v;
            }
            checkOpen();
        }
    }

    /**
     * The sequence a read at {@code readOptions} sees: the snapshot's, or else the last published
     * sequence — but only if {@code v} was still the current view when it was read, else -1 (the
     * caller retries). So a compaction that dropped versions older than that sequence can only
     * have happened after {@code v}, whose tables still hold them.
     */
    private long sequenceFor(ReadOptions readOptions, ReadView v) {
        if (readOptions.snapshot() != null) {
            return readOptions.snapshot().sequence();
        }
        long seq = lastSequence;
        return view == v ? seq : -1;
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
        checkReadOptions(readOptions);
        ReadView v = retainView();
        List<InternalIterator> sources = new ArrayList<>();
        List<TableHandle> pinned = new ArrayList<>();
        try {
            long snapshot = sequenceFor(readOptions, v);
            if (snapshot < 0) {
                return newIterator(from, to, readOptions, reverse);
            }
            sources.add(v.mem().iterator());
            v.immutables().forEach(m -> sources.add(m.iterator()));
            for (FileMetaData f : v.version().allFiles()) {
                if (f.overlaps(from, to)) {
                    TableHandle h = v.tables().handle(f.fileNumber());
                    h.retain();
                    pinned.add(h);
                    sources.add(h.reader().iterator());
                }
            }
            return new DbIterator(sources, pinned, from, to, snapshot, reverse);
        } catch (IOException | RuntimeException e) {
            pinned.forEach(TableHandle::release);
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        } finally {
            v.tables().release();
        }
    }

    /**
     * A snapshot at the last published sequence, registered under the mutex so that a compaction,
     * which reads the registered sequences under the same mutex, keeps every version it needs.
     */
    @Override
    public Snapshot snapshot() {
        checkOpen();
        mutex.lock();
        try {
            return new SnapshotImpl(lastSequence, snapshots);
        } finally {
            mutex.unlock();
        }
    }

    private static void checkReadOptions(ReadOptions readOptions) {
        if (readOptions == null) {
            throw new IllegalArgumentException("read options must not be null (use ReadOptions.DEFAULT)");
        }
    }

    // ---- stats, close ----

    @Override
    public StoreStats stats() {
        ReadView v = retainView();
        try {
            Version version = v.version();
            LevelShape shape = levelShape(version);
            List<StoreStats.LevelStats> levels = new ArrayList<>();
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                levels.add(levelStats(v, shape, level));
            }
            return new StoreStats(counters.gets.sum(), counters.filterNegatives.sum(),
                    counters.filterPositives.sum(), counters.filterTruePositives.sum(), counters.measuredFpr(),
                    options.configuredFpr(), counters.dataBlockReads.sum(), counters.bytesRead.sum(),
                    counters.blockCacheHits.sum(), counters.blockCacheMisses.sum(), counters.flushes.sum(),
                    List.copyOf(levels), tables.filterBytes(), counters.compactions.sum(),
                    counters.compactionBytesRead.sum(), counters.compactionBytesWritten.sum(),
                    counters.flushBytesWritten.sum(), counters.userBytesWritten.sum(), counters.writeSlowdowns.sum(),
                    counters.writeStops.sum(), options.filterPolicy().name(), counters.tableLookups.sum());
        } finally {
            v.tables().release();
        }
    }

    private StoreStats.LevelStats levelStats(ReadView v, LevelShape shape, int level) {
        long bytes = 0;
        long filterBytes = 0;
        double weightedFpr = 0;
        List<FileMetaData> files = v.version().files(level);
        for (FileMetaData f : files) {
            bytes += f.fileSize();
            filterBytes += f.filterFileSize();
            TableReader r = v.tables().handle(f.fileNumber()).reader();
            weightedFpr += (r.hasFilter() ? r.filterExpectedFpr() : 1.0) * f.entries();
        }
        long entries = shape.entries(level);
        FilterChoice choice = options.filterPolicy().choose(level, shape);
        long saved = choice.skipped() ? (long) Math.ceil(entries * choice.bitsPerKey() / 8) : 0;
        LevelCounters lc = counters.level(level);
        return new StoreStats.LevelStats(level, files.size(), bytes, filterBytes, entries, choice,
                entries == 0 ? 0 : weightedFpr / entries, lc.filterNegatives.sum(), lc.filterPositives.sum(),
                lc.filterTruePositives.sum(), lc.measuredFpr(), lc.probes.sum(), lc.hitRatio(), saved);
    }

    @Override
    public StoreOptions options() {
        return options;
    }

    /**
     * Refuses new writes, lets queued writers, pending flushes and a running compaction finish,
     * syncs the WAL and releases the lock. Tables still used by open iterators stay open until
     * those are closed.
     */
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
        awaitTermination(flusher);
        awaitTermination(compactor);
        compactionLock.lock();
        compactionLock.unlock();
        mutex.lock();
        try {
            if (backgroundError == null) {
                wal.sync();
            }
            wal.close();
            versions.close();
        } finally {
            mutex.unlock();
            view.tables().release();
            tables.closeAll();
            lock.close();
        }
    }

    private static void awaitTermination(ExecutorService executor) {
        executor.shutdown();
        try {
            executor.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
