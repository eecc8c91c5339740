package io.bloomstore.core.db;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.compaction.CompactionCancelledException;
import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.compaction.ShadowedVersions;
import io.bloomstore.core.compaction.ValueRewriter;
import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flushes (RocksDB's flush half of db_impl_compaction_flush and its flush_job): the flush thread
 * writes the oldest immutable memtable as a level-0 table, logs the MANIFEST edit, installs the
 * version and deletes the obsolete WAL segment; recovery's last step writes the replayed WAL the
 * same way. A failed flush becomes the store's background error.
 *
 * <p>Thread safety: one flush thread; the memtable list and the view are changed under the
 * store's mutex, the MANIFEST edit is logged without it (the version set orders the edits).
 */
final class DbFlush {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DbFlush.class);
    }
    /**
     * Memtable entries a flush writes between two looks at {@link #skipQueuedFlushes}: 64 KiB of
     * 1 KiB values, so a closing store waits for no more than that (and not for a writeback sync
     * every megabyte starts).
     */
    private static final int FLUSH_CANCEL_CHECK_ENTRIES = 64;
    private final DbState db;
    private final StoreOptions options;
    private final ReentrantLock mutex;
    private final DbBackground background;
    private final ExecutorService flusher;
    /** Flushes between retiring their memtable and deleting its obsolete files; under the mutex. */
    private int flushesFinishing;
    /**
     * Set at close once writers are drained: a running flush stops before its MANIFEST edit and
     * queued ones do not start; their memtables are left to the WAL, which the next open replays.
     */
    private volatile boolean skipQueuedFlushes;
    /**
     * The memtable an open replayed after a crash and left to this thread ({@link #finishRecovery}),
     * until its flush is logged; null otherwise. Its flush is not skipped at close and does not
     * wait for a seal: its segments are another process's, never synced by this one.
     */
    private volatile MemTable recoveredMemtable;
    /** What {@link #recoveredMemtable}'s flush reports to; set with it. */
    private volatile RecoveryFlushes recovery;

    DbFlush(DbState db, DbBackground background) {
        this.db = db;
        this.options = db.options;
        this.mutex = db.mutex();
        this.background = background;
        this.flusher = new LimitedExecutor(db.resources.flushPool(), 1);
        this.startingUp = new DbBackground.FirstStep(options.backgroundNiceness());
    }

    /** With the mutex held: queues the flush of the oldest immutable memtable. */
    void scheduleFlush() {
        flusher.execute(flushTask);
    }

    /** The flush thread's task (a class, not a method reference: no lambda spun at the first switch). */
    private final Runnable flushTask = new Runnable() {
        @Override
        public void run() {
            if (!skipQueuedFlushes) {
                startingUp.run();
            }
            flushOldest();
        }
    };

    /** The flush task's first step ({@link DbBackground.FirstStep}: in a fresh JVM, LZ4's start-up). */
    private final DbBackground.FirstStep startingUp;

    /**
     * With the mutex held: makes the version set's current version the readers' one. Edits are
     * logged without the mutex, so another thread's edit may have been logged after this
     * thread's and not installed yet: the current version holds both, and installing it (never
     * the version one edit produced) keeps what readers see moving forward only. Every table it
     * names is open already: flushes and compactions open their outputs before logging them.
     */
    private void installCurrent(MemTable mem, List<MemTable> immutables) {
        db.installVersion(db.versions.current(), mem, immutables);
    }

    /**
     * With the mutex held: whether a flush has retired its memtable but not yet deleted the files
     * it made obsolete (its WAL segment). {@code Store.flush()} waits for this too, so the WAL it
     * flushed is gone when it returns.
     */
    boolean flushFinishing() {
        return flushesFinishing > 0;
    }

    /** Flush thread: writes the oldest immutable memtable as a level-0 table and records it. */
    private void flushOldest() {
        MemTable m = db.view.immutables().get(0);
        RecoveryFlushes recovered = m == recoveredMemtable ? recovery : null;
        if (db.root.backgroundError != null) {
            // An earlier flush failed and may have left a torn MANIFEST edit: append nothing more.
            if (recovered != null) {
                recovered.finished(db.root.backgroundError);
            }
            return;
        }
        if (skipQueuedFlushes && recovered == null) {
            // Closing: this memtable's WAL segment is sealed (synced) before close returns, so the
            // next open replays it; flushing it now would only make close wait.
            return;
        }
        // The seal of m's WAL segments (and of every older one) was started by the switch that
        // queued this flush; a replayed memtable's segments were another process's, and its
        // flush is what makes them durable (RecoveryFlushes).
        Future<?> seal = recovered == null ? db.root.walSeal : Futures.DONE;
        long started = System.nanoTime();
        boolean finishing = false;
        try {
            FileMetaData meta = writeLevel0Table(m, recovered == null);
            // The edit below makes m's segments obsolete and deletes them: not while their seal may
            // still be syncing them (nor after it failed). Done long before the table, normally.
            Throwable sealFailed = Futures.await(seal);
            if (sealFailed != null) {
                throw new IOException("WAL segment seal failed: " + sealFailed, sealFailed);
            }
            long logNumber;
            VersionEdit edit;
            boolean backlog;
            mutex.lock();
            try {
                logNumber = oldestSegmentNeeded(db);
                edit = new VersionEdit().setLogNumber(logNumber).setLastSequence(db.root.lastSequence);
                if (db.root.keyspaces.length > 1 || db.root.dropping != null) {
                    // This keyspace's records in older segments are in its tables now, though
                    // another keyspace (one being dropped too) may keep those segments: replay
                    // passes over them.
                    ReadView v = db.view;
                    edit.setKeyspaceLogNumber(v.immutables().size() > 1 ? v.immutables().get(1).logNumber()
                            : v.mem().logNumber());
                }
                if (meta != null) {
                    edit.addFile(0, meta);
                    // From the edit on, the current version holds m's table: an install by another
                    // thread before the one below leaves m out (DbState#retiring).
                    db.retiring = m;
                    db.retiringTable = meta.fileNumber();
                    background.markBusy(meta.fileNumber());
                }
                addRangeDeletions(edit, m);
            } finally {
                mutex.unlock();
            }
            // The MANIFEST write and fsync take milliseconds: writers go on meanwhile.
            db.versions.logAndApply(edit);
            mutex.lock();
            try {
                // Only this thread retires memtables; another thread's install may have left m out already.
                ReadView v = db.view;
                List<MemTable> rest = new java.util.ArrayList<>(v.immutables());
                rest.remove(m);
                installCurrent(v.mem(), List.copyOf(rest));
                stopRetiring(meta);
                db.counters.flushes().increment();
                if (meta != null) {
                    db.counters.flushBytesWritten().add(meta.fileSize() + meta.filterFileSize());
                }
                background.maybeScheduleCompaction();
                if (recovered != null) {
                    recoveredMemtable = null;
                    recovered.finished(null);
                }
                // Writers stopped for a free memtable go on now, not after the deletions below:
                // unlinking a just-flushed 4 MiB WAL segment alone was 6% of the flush thread's
                // time in a 1 KiB fillseq (wall-clock profile), and writers waited for it.
                // Store.flush() waits for the deletions too (flushFinishing).
                flushesFinishing++;
                finishing = true;
                // Another full memtable waiting: its flush goes first, and the deletions wait for
                // the end of that one (every segment below its log number goes then, this one's
                // too). Writers that fill memtables faster than they are flushed wait for flushes,
                // not for unlinks.
                backlog = !db.view.immutables().isEmpty();
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
            if (!backlog) {
                // Listing the directory and unlinking a just-flushed 4 MiB WAL segment take
                // milliseconds: not with writers locked out.
                ObsoleteFiles.delete(db.fs, ObsoleteFiles.choose(db, logNumber, false));
            }
            logFlush(m, meta, started);
            if (!backlog) {
                db.cumulative.saveOrWarnAtMostEverySecond();
            }
            mutex.lock();
            try {
                flushesFinishing--;
                finishing = false;
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
        } catch (CompactionCancelledException e) {
            // Closing: the table is abandoned, and the memtable's synced WAL segment is replayed by
            // the next open.
            Log.LOG.debug("Flush of a memtable of {} entries stopped: the store is closing", m.entries());
        } catch (Throwable t) {
            // Any throwable, an Error too: lost with the thread, it would leave writers waiting forever.
            mutex.lock();
            try {
                if (finishing) {
                    flushesFinishing--;
                }
                if (db.retiring == m) {
                    db.retiring = null;
                    db.retiringTable = -1;
                }
                IOException failure = db.root.fail("flush", t);
                if (recovered != null) {
                    recovered.finished(failure);
                }
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
        }
    }

    /** With the mutex held, once the flush installed the version without its memtable: its table may be compacted now. */
    private void stopRetiring(FileMetaData meta) {
        if (meta != null) {
            db.retiring = null;
            db.retiringTable = -1;
            background.unmarkBusy(meta.fileNumber());
        }
    }

    /**
     * With the mutex held, the oldest immutable memtable of {@code flushed}'s keyspace about to be
     * retired: the number of the oldest WAL segment a memtable of any keyspace still needs (its
     * oldest unflushed memtable's, the active one's when none waits). Segments below it hold
     * nothing that is not in a table once this flush's edit is logged.
     */
    static long oldestSegmentNeeded(DbState flushed) {
        long oldest = Long.MAX_VALUE;
        for (DbState k : flushed.root.keyspaces) {
            oldest = Math.min(oldest, oldestSegmentNeeded(k, flushed));
        }
        // A keyspace being dropped is the store's until its drop is logged.
        DbState dropping = flushed.root.dropping;
        return dropping == null ? oldest : Math.min(oldest, oldestSegmentNeeded(dropping, flushed));
    }

    /** The oldest WAL segment keyspace {@code k}'s memtables need once {@code flushed}'s oldest is retired. */
    private static long oldestSegmentNeeded(DbState k, DbState flushed) {
        ReadView v = k.view;
        int skip = k == flushed ? 1 : 0;
        return v.immutables().size() > skip ? v.immutables().get(skip).logNumber() : v.mem().logNumber();
    }

    /**
     * Writes a memtable's entries as a table, null when empty: every tombstone (deeper levels may
     * hold what it deletes) and every version some reader may still see — the newest of each key
     * and those a live snapshot needs. Versions shadowed for everyone are dropped here, as a
     * compaction would drop them, so that a hot key rewritten many times between flushes costs
     * level 0 one entry, not one per write. A snapshot taken after this reads the snapshot list
     * has a sequence above every entry of the (immutable) memtable, so it needs only the newest.
     */
    FileMetaData writeLevel0Table(MemTable m) throws IOException {
        return writeLevel0Table(m, true);
    }

    /** As {@link #writeLevel0Table(MemTable)}; a close stops it only when {@code cancellable}. */
    private FileMetaData writeLevel0Table(MemTable m, boolean cancellable) throws IOException {
        if (m.entries() == 0) {
            return null;
        }
        long[] snapshotSequences = db.pinnedSequences();
        // The memtable's own range tombstones go into the MANIFEST by the same edit as this table:
        // what they delete need not be written.
        ShadowedVersions versions = new ShadowedVersions(snapshotSequences, false,
                db.versions.current().rangeTombstones().plus(m.rangeDeletions()));
        long number = db.versions.newFileNumber();
        FilterChoice filter = options.filterPolicy().choose(0, db.levelShape(db.versions.current()).plus(0, m.entries()));
        TableBuilder builder = new TableBuilder(db.fs, db.dir, number, TableOptions.of(options).withFilter(filter),
                db.tableSyncer, options.bytesPerSync());
        TableMetadata t;
        int sinceCheck = 0;
        ValueRewriter rewriter = ValueRewriter.forFlush(db.rules, versions);
        try (InternalIterator it = m.iterator()) {
            ValueRewriter.Sink sink = rewriter == null ? null : new KeptEntries(versions, builder);
            CompactionJob.Merger stream = rewriter == null ? null : ValueRewriter.over(it);
            for (it.seekToFirst(); it.valid(); ) {
                if (++sinceCheck == FLUSH_CANCEL_CHECK_ENTRIES) {
                    sinceCheck = 0;
                    if (skipQueuedFlushes && cancellable) {
                        throw new CompactionCancelledException("flush stopped: the store is closing");
                    }
                }
                if (rewriter != null && rewriter.rewrites(it.type())) {
                    rewriter.rewrite(stream, sink);
                    continue;
                }
                // One copy of the key per entry: the memtable unpacks it from its arena on each call.
                byte[] key = it.key();
                if (versions.keepUnchangingKey(key, it.sequence(), it.type())) {
                    builder.add(key, it.sequence(), it.type(), it.valueArray(), it.valueOffset(), it.valueLength());
                }
                it.next();
            }
            if (skipQueuedFlushes && cancellable) {
                // Finishing writes the index and filter and syncs the table: not for a closing store.
                throw new CompactionCancelledException("flush stopped: the store is closing");
            }
            if (builder.entries() == 0) {
                // Every entry lay under the memtable's own range tombstones: no table.
                builder.abandon();
                return null;
            }
            t = builder.finish();
        } catch (CompactionCancelledException e) {
            // The store is closing: the next open deletes the partial table.
            builder.abandonLeavingFiles();
            throw e;
        } catch (IOException | RuntimeException e) {
            builder.abandon();
            throw e;
        }
        db.tables.open(number, 0);
        return new FileMetaData(t.fileNumber(), t.fileSize(), t.filterFileSize(), t.smallestUserKey(),
                t.largestUserKey(), t.entries(), t.smallestSeq(), t.largestSeq());
    }

    /**
     * Recovery's last step for a store opened read-only: the replayed WAL becomes the memtable
     * readers see, and nothing is written, deleted or scheduled.
     */
    void finishReadOnlyRecovery(MemTable replayed) {
        mutex.lock();
        try {
            db.installVersion(db.versions.current(), replayed, List.of());
        } finally {
            mutex.unlock();
        }
    }

    /** What recovery's last step does with the replayed writes ({@link #finishRecovery}). */
    enum Recovery {
        /** The replayed memtables become the live ones; their segments stay, covered by the MANIFEST's log number. */
        KEEP_IN_WAL,
        /** Each keyspace's replayed writes become a level-0 table before the open returns. */
        FLUSH_NOW,
        /**
         * Each keyspace's replayed memtable waits, immutable, for the flush thread, which writes it
         * while the store is in use; its segments stay until then.
         */
        FLUSH_IN_BACKGROUND
    }

    /**
     * Recovery's last step, before the store is handed out. {@link Recovery#KEEP_IN_WAL} (the
     * replay read every segment to its end after a clean close, and they are few and small): the
     * replayed memtable becomes the live one and its segments stay, still covered by the MANIFEST's
     * log number, to be replayed again by the next open or deleted once this memtable is flushed —
     * LevelDB's reuse of a small log: a one-shot {@code put} writes no table, no MANIFEST edit and
     * starts no compaction. {@link Recovery#FLUSH_NOW} (what a replay dropped or could not join to
     * the MANIFEST's last sequence, as LevelDB and RocksDB do for every crash): the replayed writes
     * become a level-0 table, recorded with the new WAL segment's number as the MANIFEST's log
     * number, and the replayed segments are deleted. {@link Recovery#FLUSH_IN_BACKGROUND} (a whole
     * replay after a crash): each keyspace's replayed memtable is installed as its oldest immutable
     * one and flushed by the flush thread, its segments kept until then; the open returns without
     * writing a table (after a crash of a Kafka Streams instance that was most of its stores' open).
     * The returned future is done once every such flush is logged: the new segment's first sync
     * (and close's) waits for it, because a process that died may have left bytes in the page cache
     * whose writeback failed, so the replayed writes are durable only once a table of this process
     * holds them, and a synced write must not be durable while an older one is not. Either way, what
     * a crash may have left behind (orphans of an earlier process) is deleted.
     */
    Future<?> finishRecovery(MemTable replayed, java.util.Map<Integer, MemTable> keyspaces, Recovery how,
                             List<String> listing) throws IOException {
        if (how != Recovery.FLUSH_NOW) {
            if (replayed.logNumber() > db.versions.logNumber()) {
                // LevelDB's order: the MANIFEST names the segment the writes now live from before
                // the segments below it go. Deleting them first left a MANIFEST whose log number
                // named a deleted segment, and a later torn edit made the store refuse to open.
                db.versions.logAndApply(new VersionEdit().setLogNumber(replayed.logNumber())
                        .setLastSequence(db.root.lastSequence));
            }
            RecoveryFlushes flushes = null;
            mutex.lock();
            try {
                if (how == Recovery.KEEP_IN_WAL) {
                    db.installVersion(db.versions.current(), replayed, List.of());
                    for (DbState k : db.root.keyspaces) {
                        MemTable m = keyspaces.get(k.keyspaceId);
                        if (k != db && m != null) {
                            k.installVersion(k.versions.current(), m, List.of());
                        }
                    }
                } else {
                    List<DbState> owners = new java.util.ArrayList<>();
                    List<MemTable> memtables = new java.util.ArrayList<>();
                    for (DbState k : db.root.keyspaces) {
                        MemTable m = k == db ? replayed : keyspaces.get(k.keyspaceId);
                        if (m != null && !m.isEmpty()) {
                            owners.add(k);
                            memtables.add(m);
                        }
                    }
                    flushes = new RecoveryFlushes(owners.size());
                    for (int i = 0; i < owners.size(); i++) {
                        DbState k = owners.get(i);
                        k.installVersion(k.versions.current(), k.view.mem(), List.of(memtables.get(i)));
                        k.background.flushRecovered(memtables.get(i), flushes);
                    }
                }
            } finally {
                mutex.unlock();
            }
            // Before any compaction starts: orphans are told apart from its outputs by the listing.
            ObsoleteFiles.deleteAtOpen(db, ObsoleteFiles.chooseAtOpen(db, replayed.logNumber(), listing));
            scheduleCompactions();
            return flushes == null ? Futures.DONE : flushes.done;
        }
        // Every keyspace's replayed writes become a level-0 table of its own, all logged in one
        // edit with the new log number: a crash before it replays them all again, never twice.
        VersionEdit edit = new VersionEdit().setLogNumber(db.view.mem().logNumber()).setLastSequence(db.root.lastSequence);
        for (DbState k : db.root.keyspaces) {
            MemTable m = k == db ? replayed : keyspaces.get(k.keyspaceId);
            if (m == null) {
                continue;
            }
            FileMetaData meta = k.background.writeLevel0Table(m);
            VersionEdit section = k == db ? edit : new VersionEdit().setKeyspace(k.keyspaceId);
            if (db.root.keyspaces.length > 1) {
                section.setKeyspaceLogNumber(db.view.mem().logNumber());
            }
            addRangeDeletions(section, m);
            if (meta != null) {
                section.addFile(0, meta);
                k.counters.flushes().increment();
                k.counters.flushBytesWritten().add(meta.fileSize() + meta.filterFileSize());
            }
            if (k != db) {
                edit.addSection(section);
            }
        }
        db.versions.logAndApply(edit);
        for (DbState k : db.root.keyspaces) {
            k.installVersion(k.versions.current(), k.view.mem(), List.of());
        }
        ObsoleteFiles.deleteAtOpen(db, ObsoleteFiles.chooseAtOpen(db, db.view.mem().logNumber(), listing));
        scheduleCompactions();
        return Futures.DONE;
    }

    /**
     * With the mutex held, the open's last step: {@code m}, this keyspace's replayed memtable and
     * its oldest immutable one now, is flushed by the flush thread and reported to {@code flushes}.
     */
    void flushRecovered(MemTable m, RecoveryFlushes flushes) {
        recovery = flushes;
        recoveredMemtable = m;
        scheduleFlush();
    }

    /**
     * The background flushes of what an open replayed after a crash, one per keyspace that holds
     * replayed writes: {@link #done} once each is logged, or with the first one's failure.
     */
    static final class RecoveryFlushes {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private final AtomicInteger left;

        RecoveryFlushes(int flushes) {
            this.left = new AtomicInteger(flushes);
            if (flushes == 0) {
                done.complete(null);
            }
        }

        /** One flush ended: logged when {@code failure} is null. */
        void finished(Throwable failure) {
            if (failure != null) {
                done.completeExceptionally(failure);
            } else if (left.decrementAndGet() == 0) {
                done.complete(null);
            }
        }
    }

    /** After recovery: every keyspace's compactions that are due. */
    private void scheduleCompactions() {
        mutex.lock();
        try {
            for (DbState k : db.root.keyspaces) {
                k.background.maybeScheduleCompaction();
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Moves a flushed memtable's range deletions into the MANIFEST with its table. */
    private static void addRangeDeletions(VersionEdit edit, MemTable m) {
        for (RangeTombstone t : m.rangeDeletions()) {
            edit.addRangeTombstone(t);
        }
    }

    private void logFlush(MemTable m, FileMetaData meta, long started) {
        if (meta == null) {
            Log.LOG.debug("Flushed an empty memtable in {} ms", millisSince(started));
        } else {
            Log.LOG.info("Flushed memtable of {} entries ({} bytes) to L0 table {}: {} bytes + {} filter bytes in {} ms",
                    m.entries(), m.approximateBytes(), meta.fileNumber(), meta.fileSize(), meta.filterFileSize(),
                    millisSince(started));
        }
    }

    /**
     * At close: a running flush stops at its next check (before its MANIFEST edit), queued ones do
     * not start; their memtables' WAL segments are sealed (synced) before close returns.
     */
    void requestStop() {
        skipQueuedFlushes = true;
    }

    /** Waits for the flush thread to stop after {@link #requestStop()}. */
    void awaitStopped() {
        DbBackground.awaitTermination(flusher);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** A flush's merged entries into its table, each through {@link ShadowedVersions#keep}. */
    private static final class KeptEntries implements ValueRewriter.Sink {
        private final ShadowedVersions versions;
        private final TableBuilder builder;

        KeptEntries(ShadowedVersions versions, TableBuilder builder) {
            this.versions = versions;
            this.builder = builder;
        }

        @Override
        public void entry(byte[] key, long sequence, ValueType type, byte[] value, int offset, int length)
                throws IOException {
            if (versions.keep(key, sequence, type)) {
                builder.add(key, sequence, type, value, offset, length);
            }
        }
    }
}
