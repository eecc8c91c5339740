package io.bloomstore.core.db;

import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.core.CheckpointReport;
import io.bloomstore.core.IngestReport;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.KeyspaceOptions;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.compaction.CompactionCancelledException;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.stats.StoreStatsMBean;
import io.bloomstore.core.wal.LogWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * The store's engine behind {@link Store}: the public entry points and close. The work is split
 * as RocksDB splits its DBImpl: {@link DbWrite} (group commit, memtable switch, backpressure),
 * {@link DbBackground} (scheduling and the background error, over {@link DbFlush} and
 * {@link DbCompaction}), {@link DbRead} (lookups, iterators, snapshots, statistics), over the
 * shared {@link DbState}. Opening and recovery are in
 * {@link StoreOpener}. See {@code docs/architecture.md}.
 *
 * <p>Thread safety: safe for concurrent use; see each part for its locking.
 */
public final class DbImpl implements Store {
    private final DbState db;
    private final DbBackground background;
    private final DbWrite writes;
    private final DbRead reads;
    private final KeyspaceCatalog keyspaces;
    private final Closeable lock;
    private final Path lockFile;
    /** The JMX registration when {@link StoreOptions#jmxName()} is set, else null. */
    private StoreStatsMBean jmx;

    DbImpl(FileSystem fs, Path dir, StoreOptions options, StoreCounters counters, CountersFile cumulative,
           VersionSet versions, TableRegistry tables, Closeable lock, long walNumber, LogWriter wal,
           long lastSequence) {
        this.db = new DbState(fs, dir, options, counters, cumulative, versions, tables, walNumber, lastSequence,
                wal == null);
        this.background = new DbBackground(db);
        this.writes = new DbWrite(db, background, wal);
        this.reads = new DbRead(db);
        db.background = background;
        db.reads = reads;
        this.keyspaces = new KeyspaceCatalog(db);
        for (Map.Entry<Integer, VersionSet.Keyspace> k : versions.keyspaces().entrySet()) {
            keyspaces.addExisting(k.getKey(), k.getValue().name(), walNumber);
        }
        this.lock = lock;
        this.lockFile = dir.resolve(io.bloomstore.core.manifest.FileNames.LOCK);
    }

    /** Opens or creates the store in {@code dir}; see {@link Store#open(FileSystem, Path, StoreOptions)}. */
    public static Store open(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        return StoreOpener.open(fs, dir, options);
    }

    /** Opens the store in {@code dir} read-only; see {@link Store#openReadOnly(FileSystem, Path, StoreOptions)}. */
    public static Store openReadOnly(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        return StoreOpener.openReadOnly(fs, dir, options);
    }

    /** Opens a secondary view of the store in {@code dir}; see {@link Store#openSecondary(FileSystem, Path, Path, StoreOptions)}. */
    public static io.bloomstore.core.SecondaryStore openSecondary(FileSystem fs, Path dir, Path scratch,
                                                                  StoreOptions options) throws IOException {
        return SecondaryDb.open(fs, dir, scratch, options);
    }

    /**
     * The pool that syncs table files in the background as they are written ({@code
     * StoreOptions.bytesPerSync}), one for every store of the JVM: {@link io.bloomstore.core.TableWriter}
     * writes its tables through it as a flush does.
     */
    public static java.util.concurrent.Executor tableSyncer() {
        return DbState.TABLE_SYNCER;
    }

    /**
     * Where a {@link io.bloomstore.core.TableWriter} of these options compresses its blocks: the
     * compaction threads of the options' resources ({@link io.bloomstore.core.StoreResources#shared()}
     * unless they name others), so a bulk load starts no thread of its own.
     */
    public static java.util.concurrent.Executor blockEncoder(io.bloomstore.core.StoreOptions options) {
        io.bloomstore.core.StoreResources r = options.resources() != null ? options.resources()
                : io.bloomstore.core.StoreResources.shared();
        return SharedResources.of(r).compactionPool();
    }

    /**
     * The open's last step: the store joins its resources (and, when writable, their memtable
     * budget, charged with what recovery left in its memtable).
     */
    void joinResources() {
        db.resources.register(this);
        if (!db.readOnly) {
            db.mutex().lock();
            try {
                db.root.memtableAccount = db.resources.memtableBudget().open(new BudgetSwitch(writes));
                db.chargeMemtables();
            } finally {
                db.mutex().unlock();
            }
        }
    }

    /** The memtable budget's switch of this store (a class, not a method reference: a one-shot put links no lambda). */
    private static final class BudgetSwitch implements java.util.function.BooleanSupplier {
        private final DbWrite writes;

        BudgetSwitch(DbWrite writes) {
            this.writes = writes;
        }

        @Override
        public boolean getAsBoolean() {
            return writes.switchForBudget();
        }
    }

    /** Registers the statistics in JMX when the options name the store there. */
    void registerJmx() {
        if (db.options.jmxName() != null) {
            jmx = StoreStatsMBean.register(db.options.jmxName(), this::stats);
        }
    }

    /**
     * Recovery's last step; see {@link DbFlush#finishRecovery}. {@code walDropped} says what
     * point-in-time WAL recovery dropped (null when nothing), for {@link #stats()}; {@code listing}
     * is the directory's file names as the open found them. A flush of the replayed writes left to
     * the background holds back the new WAL segment's first sync until it is logged.
     */
    void finishRecovery(MemTable replayed, Map<Integer, MemTable> keyspaceMemtables, String walDropped,
                        DbFlush.Recovery how, List<String> listing) throws IOException {
        db.root.walRecoveryDropped = walDropped;
        if (db.readOnly) {
            background.finishReadOnlyRecovery(replayed);
            for (DbState k : db.keyspaces) {
                MemTable m = keyspaceMemtables.get(k.keyspaceId);
                if (k != db && m != null) {
                    k.background.finishReadOnlyRecovery(m);
                }
            }
        } else {
            writes.syncAfter(background.finishRecovery(replayed, keyspaceMemtables, how, listing));
        }
    }

    // ---- Keyspaces: created, found and dropped by the catalog ----

    @Override
    public Keyspace keyspace(String name) throws IOException {
        return keyspace(name, null);
    }

    @Override
    public Keyspace keyspace(String name, KeyspaceOptions options) throws IOException {
        return new KeyspaceHandle(keyspaces.get(name, options));
    }

    @Override
    public List<String> keyspaces() {
        return keyspaces.names();
    }

    @Override
    public void dropKeyspace(String name) throws IOException {
        keyspaces.drop(name);
    }

    @Override
    public byte[] get(Keyspace keyspace, byte[] key, ReadOptions readOptions) throws IOException {
        db.checkOpen();
        DbState k = KeyspaceHandle.stateIn(db, keyspace);
        writes.checkKey(key);
        checkReadOptions(readOptions);
        return k.reads.get(key, readOptions);
    }

    @Override
    public StoreIterator iterator(Keyspace keyspace, byte[] from, byte[] to, ReadOptions readOptions) {
        return keyspaceIterator(keyspace, from, to, readOptions, false);
    }

    /** An iterator over [{@code from}, {@code to}) of {@code keyspace}, descending when {@code reverse}. */
    private StoreIterator keyspaceIterator(Keyspace keyspace, byte[] from, byte[] to, ReadOptions readOptions,
                                          boolean reverse) {
        db.checkOpen();
        DbState k = KeyspaceHandle.stateIn(db, keyspace);
        checkReadOptions(readOptions);
        return k.reads.iterator(from, to, readOptions, reverse);
    }

    @Override
    public StoreIterator prefixIterator(Keyspace keyspace, byte[] prefix, ReadOptions readOptions) {
        db.checkOpen();
        DbState k = KeyspaceHandle.stateIn(db, keyspace);
        checkReadOptions(readOptions);
        if (prefix == null) {
            throw new IllegalArgumentException("prefix must not be null (an empty prefix scans every key)");
        }
        byte[] from = prefix.clone();
        return k.reads.iterator(from, PrefixExtractor.successor(from), readOptions, false);
    }

    @Override
    public StoreIterator reverseIterator(Keyspace keyspace, byte[] from, byte[] to, ReadOptions readOptions) {
        return keyspaceIterator(keyspace, from, to, readOptions, true);
    }

    @Override
    public IngestReport ingest(Keyspace keyspace, List<Path> tables) throws IOException {
        db.checkOpen();
        DbState k = KeyspaceHandle.stateIn(db, keyspace);
        return Ingester.ingest(k, k.background, writes, tables);
    }

    @Override
    public StoreStats stats(Keyspace keyspace) {
        db.checkOpen();
        return KeyspaceHandle.stateIn(db, keyspace).reads.stats();
    }

    /**
     * A secondary view's catch-up ({@link SecondaryView#readOn}) added WAL records to this read-only
     * store's memtable: makes them visible up to {@code lastSequence}, the memtable's range
     * deletions gathered again first when it took some (as a write does).
     */
    void publishReplayed(long lastSequence, boolean rangeDeletions) {
        db.mutex().lock();
        try {
            if (rangeDeletions) {
                for (DbState k : db.keyspaces) {
                    k.view = k.view.withMemtableRangeDeletions();
                }
            }
            db.root.lastSequence = lastSequence;
        } finally {
            db.mutex().unlock();
        }
    }

    /**
     * After a failed open (recovery's last step or later): stops the background threads and lets go
     * of the view's tables, writing nothing. The opener then closes the WAL segment, the tables, the
     * MANIFEST and the lock.
     */
    void abandonOpen() {
        db.mutex().lock();
        try {
            db.root.closed = true;
            db.queue.closeAndDrain();
        } finally {
            db.mutex().unlock();
        }
        for (DbState k : db.keyspaces) {
            k.background.shutdown();
        }
        for (DbState k : db.keyspaces) {
            k.readers.scrape();
            k.view.tables().release();
            if (k != db) {
                k.tables.closeAll();
            }
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        put(key, value, WriteOptions.DEFAULT);
    }

    @Override
    public void put(byte[] key, byte[] value, WriteOptions writeOptions) throws IOException {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete)");
        }
        writes.writeOne(key, value, writeOptions);
    }

    @Override
    public void delete(byte[] key) throws IOException {
        delete(key, WriteOptions.DEFAULT);
    }

    @Override
    public void delete(byte[] key, WriteOptions writeOptions) throws IOException {
        writes.writeOne(key, null, writeOptions);
    }

    @Override
    public void merge(byte[] key, byte[] operand) throws IOException {
        merge(key, operand, WriteOptions.DEFAULT);
    }

    @Override
    public void merge(byte[] key, byte[] operand, WriteOptions writeOptions) throws IOException {
        writes.mergeOne(key, operand, writeOptions);
    }

    @Override
    public void deleteRange(byte[] from, byte[] to) throws IOException {
        deleteRange(from, to, WriteOptions.DEFAULT);
    }

    @Override
    public void deleteRange(byte[] from, byte[] to, WriteOptions writeOptions) throws IOException {
        writes.deleteRange(from, to, writeOptions);
    }

    @Override
    public void write(WriteBatch batch, WriteOptions writeOptions) throws IOException {
        // The caller's batch may change on another thread while the group commit encodes it and
        // counts its sequence numbers: the store writes a copy taken at once.
        writes.write(batch == null ? null : batch.copy(), writeOptions);
    }

    @Override
    public byte[] get(byte[] key) throws IOException {
        return get(key, ReadOptions.DEFAULT);
    }

    @Override
    public byte[] get(byte[] key, ReadOptions readOptions) throws IOException {
        db.checkOpen();
        writes.checkKey(key);
        checkReadOptions(readOptions);
        return reads.get(key, readOptions);
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to) {
        return iterator(from, to, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to, ReadOptions readOptions) {
        db.checkOpen();
        checkReadOptions(readOptions);
        return reads.iterator(from, to, readOptions, false);
    }

    @Override
    public StoreIterator prefixIterator(byte[] prefix) {
        return prefixIterator(prefix, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator prefixIterator(byte[] prefix, ReadOptions readOptions) {
        db.checkOpen();
        checkReadOptions(readOptions);
        if (prefix == null) {
            throw new IllegalArgumentException("prefix must not be null (an empty prefix scans every key)");
        }
        byte[] from = prefix.clone();
        return reads.iterator(from, PrefixExtractor.successor(from), readOptions, false);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to) {
        return reverseIterator(from, to, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to, ReadOptions readOptions) {
        db.checkOpen();
        checkReadOptions(readOptions);
        return reads.iterator(from, to, readOptions, true);
    }

    @Override
    public Snapshot snapshot() {
        db.checkOpen();
        return reads.snapshot();
    }

    /**
     * A snapshot of another store (or another open of this one) would be read at a sequence this
     * store's compactions never kept versions for: refused rather than answered wrongly.
     */
    private void checkReadOptions(ReadOptions readOptions) {
        if (readOptions == null) {
            throw new IllegalArgumentException("read options must not be null (use ReadOptions.DEFAULT)");
        }
        Snapshot snapshot = readOptions.snapshot();
        if (snapshot != null && !(snapshot instanceof SnapshotImpl s && s.of(db.snapshots))) {
            throw new IllegalArgumentException("snapshot " + snapshot + " was not taken of this store (" + db.dir
                    + ") since it was opened");
        }
    }

    @Override
    public void flush() throws IOException {
        writes.flush();
    }

    @Override
    public void compact() throws IOException {
        db.checkOpen();
        db.checkWritable();
        writes.flush();
        for (DbState k : db.keyspaces) {
            try {
                k.background.compact();
            } catch (CompactionCancelledException e) {
                // Only a close or a drop of the keyspace cancels a compaction. A caller racing the
                // close is told the store is closed, as by every other method; a keyspace dropped
                // meanwhile has nothing left to compact.
                if (db.root.closed) {
                    IllegalStateException closed = new IllegalStateException(DbState.closedMessage(db.dir));
                    closed.addSuppressed(e);
                    throw closed;
                }
                if (!k.dropped) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void awaitCompactions() throws IOException {
        for (DbState k : db.keyspaces) {
            k.background.awaitCompactions();
        }
    }

    @Override
    public CheckpointReport checkpoint(Path target) throws IOException {
        db.checkOpen();
        db.checkWritable();
        return CheckpointWriter.write(db, target);
    }

    @Override
    public IngestReport ingest(List<Path> tables) throws IOException {
        return Ingester.ingest(db, background, writes, tables);
    }

    /** The store directory. */
    public Path directory() {
        return db.dir;
    }

    /**
     * The store's files as of now, kept on disk until the result is closed: what a backup copies
     * ({@link io.bloomstore.core.StoreBackup}). Not for services: its type is internal.
     */
    public LiveFiles liveFiles() throws IOException {
        return LiveFiles.capture(db);
    }

    @Override
    public StoreStats stats() {
        db.checkOpen();
        return reads.stats();
    }

    @Override
    public StoreOptions options() {
        return db.options;
    }

    /** The background work, for tests in this package. */
    DbBackground background() {
        return background;
    }

    /** The default keyspace's state, for tests in this package. */
    DbState state() {
        return db;
    }

    /** The current version (the MANIFEST's), for tests in this package. */
    Version currentVersion() {
        return db.versions.current();
    }

    /** The open tables and their reclaiming, for tests in this package. */
    TableRegistry tables() {
        return db.tables;
    }

    /**
     * Refuses new writes and lets queued writers finish; stops a running flush and skips queued
     * ones (their memtables are left to the WAL, which the next open replays); cancels running
     * compactions (removing their partial outputs, at the latest at the next open); syncs the WAL
     * while those stop; releases the lock. The WAL and MANIFEST are closed and the lock released
     * even when the sync throws. Tables still used by open iterators stay open until those are
     * closed; replaced tables not yet deleted are deleted by the next open.
     */
    @Override
    public void close() throws IOException {
        db.mutex().lock();
        try {
            if (db.root.closed) {
                return;
            }
            db.root.closed = true;
            db.queue.closeAndDrain();
        } finally {
            db.mutex().unlock();
        }
        // A keyspace being created or dropped finishes its MANIFEST edit first; later ones see
        // the store closed.
        synchronized (keyspaces.changes()) {
            closeKeyspaces();
        }
    }

    /** {@link #close()} once writers are drained and no keyspace is being created or dropped. */
    private void closeKeyspaces() throws IOException {
        // No writer is left, and no background thread writes the WAL: its final sync runs on a
        // sync thread while this one stops the background work and closes the tables, not before
        // or after them (each is milliseconds to tens of milliseconds on a busy machine).
        DbState[] keyspaces = db.keyspaces;
        for (DbState k : keyspaces) {
            k.background.requestShutdown();
        }
        Future<?> finalSync = writes.startFinalSync();
        for (DbState k : keyspaces) {
            k.background.shutdown();
        }
        if (jmx != null) {
            jmx.close();
        }
        if (db.readOnly) {
            db.cumulative.addToFileOrSkip(lockFile);
        } else {
            db.cumulative.saveWithoutSyncOrWarn();
        }
        Throwable walFailure = null;
        db.mutex().lock();
        try {
            db.versions.close();
        } finally {
            db.mutex().unlock();
            for (DbState k : keyspaces) {
                k.readers.scrape();
                k.view.tables().release();
                k.tables.closeAll();
            }
            try {
                writes.closeWal(finalSync);
            } catch (IOException | RuntimeException | Error e) {
                walFailure = e;
            }
            lock.close();
            MemtableBudget.Account account = db.root.memtableAccount;
            if (account != null) {
                account.close();
            }
            db.resources.unregister(this);
        }
        // A process may exit right after a close: not inside the filter memory's start-up that a
        // flush began (a wait only for a close soon after the process's first flush).
        OffHeapBackend.awaitChoiceAhead();
        Futures.rethrow(walFailure, "WAL close failed");
    }
}
