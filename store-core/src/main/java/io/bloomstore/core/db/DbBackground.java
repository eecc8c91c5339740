package io.bloomstore.core.db;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.compaction.Compaction;
import io.bloomstore.core.compaction.CompactionCancelledException;
import io.bloomstore.core.compaction.CompactionPicker;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The background work of an open store, split as RocksDB splits db_impl_compaction_flush: this
 * class schedules (compactions chosen and queued, {@link #compact()}'s level-by-level merge,
 * waiting for compactions, stopping everything at close) and keeps the background error that a
 * failure leaves behind, after which the store refuses writes; and range deletion's cleanup
 * (queued after flushes and compactions, run by {@link RangeDeletionCleaner}, its compaction
 * targets taken when no level needs compaction); {@link DbFlush} runs the flush
 * thread and recovery's flush, {@link DbCompaction} runs one compaction (trivial move or merge).
 *
 * <p>Thread safety: one flush thread and {@code StoreOptions.maxBackgroundJobs} compaction
 * threads. Compactions are chosen under the store's mutex, which also records the running ones
 * and their tables, so two never share a table or write overlapping ranges of one level
 * ({@link CompactionPicker#pick(Version, Set, java.util.Collection)}); each logs its MANIFEST edit
 * without the mutex (the version set orders the edits) and installs the result under it. A
 * manual {@link #compact()} waits for the running compactions and holds new ones back while it
 * runs.
 */
final class DbBackground {
    private final DbState db;
    private final StoreOptions options;
    private final DbFlush flush;
    private final DbCompaction compaction;
    private final CompactionPicker picker;
    private final ExecutorService compactor;
    private final ReentrantLock mutex;
    /** Background compactions queued or running; guarded by the mutex. */
    private final List<Compaction> running = new ArrayList<>();
    /** The file numbers of their input tables; guarded by the mutex. */
    private final Set<Long> busy = new HashSet<>();
    /** A {@link #compact()} call is running: no background compaction starts; guarded by the mutex. */
    private boolean manual;
    /** The most compactions queued or running at once, and the merges inside level 0 started; under the mutex. */
    private int mostRunning;
    private long intraLevel0Started;
    /** Background compaction tasks running now (not queued). */
    private final AtomicInteger activeCompactions = new AtomicInteger();
    /** Compaction tasks' first step ({@link FirstStep}). */
    private final FirstStep preparingCompactions;
    /** Whole-table drops and range tombstone collection ({@link RangeDeletionCleaner}). */
    private final RangeDeletionCleaner cleaner;
    /** A cleanup is queued, or running; under the mutex. */
    private boolean cleanupQueued;
    private boolean cleaning;
    /** The version the last cleanup looked at: another runs only once the version changed; under the mutex. */
    private Version cleanedVersion;

    /** Every compaction's and flush's first step ({@link StartUp}); a test may hold tasks there. */
    static volatile Runnable taskStartUp = new StartUp();

    /**
     * Runs background tasks' first step — the thread's priority lowered, once per thread, when the
     * application asked for it ({@link BackgroundPriority}), then {@link #taskStartUp}. A failure in the step is left to the task's own work, which meets it
     * again and reports it as ever. One per kind of task (compactions, the flush).
     *
     * <p>Thread safety: safe for concurrent use.
     */
    static final class FirstStep {
        private final int niceness;

        /** {@code niceness}: {@code StoreOptions.backgroundNiceness}. */
        FirstStep(int niceness) {
            this.niceness = niceness;
        }

        void run() {
            try {
                BackgroundPriority.lowerCurrentThread(niceness);
                taskStartUp.run();
            } catch (RuntimeException | LinkageError e) {
                // Left to the task's own work (see above).
            }
        }
    }

    /**
     * The block codecs' one-time start-up ({@link TableReader#initialiseCodecs()}: LZ4's JNI
     * library, some 55 ms of a fresh JVM's processor time that a closing store cannot cut short),
     * done once per JVM by whichever background task comes first. Should the JVM be shutting down
     * meanwhile, lz4-java falls back to its Java code without a word. Not the filter memory's
     * start-up (Chronicle Bytes', some 150 ms): a close that returned during it could let the
     * process exit under it, and Chronicle's own thread then dies printing a stack trace
     * ("Shutdown in progress"), so a close still waits for a flush's or compaction's filter build.
     * A class, not a method reference: no lambda spun at a first flush.
     */
    static final class StartUp implements Runnable {
        @Override
        public void run() {
            TableReader.initialiseCodecs();
        }
    }

    DbBackground(DbState db) {
        this.db = db;
        this.options = db.options;
        this.picker = new CompactionPicker(options);
        this.preparingCompactions = new FirstStep(options.backgroundNiceness());
        this.mutex = db.mutex();
        this.flush = new DbFlush(db, this);
        this.compaction = new DbCompaction(db);
        this.compactor = new LimitedExecutor(db.resources.compactionPool(), options.maxBackgroundJobs());
        this.cleaner = new RangeDeletionCleaner(db);
    }

    /** With the mutex held: queues the flush of the oldest immutable memtable. */
    void scheduleFlush() {
        flush.scheduleFlush();
    }

    /** See {@link DbFlush#flushFinishing()}. */
    boolean flushFinishing() {
        return flush.flushFinishing();
    }

    /** Recovery's last step; see {@link DbFlush#finishRecovery}. */
    java.util.concurrent.Future<?> finishRecovery(MemTable replayed, java.util.Map<Integer, MemTable> keyspaces,
                                                  DbFlush.Recovery how, List<String> listing) throws IOException {
        return flush.finishRecovery(replayed, keyspaces, how, listing);
    }

    /** With the mutex held: no compaction takes table {@code fileNumber} until {@link #unmarkBusy}. */
    void markBusy(long fileNumber) {
        busy.add(fileNumber);
    }

    /** With the mutex held: ends {@link #markBusy}. */
    void unmarkBusy(long fileNumber) {
        busy.remove(fileNumber);
    }

    /** See {@link DbFlush#flushRecovered}. */
    void flushRecovered(MemTable m, DbFlush.RecoveryFlushes flushes) {
        flush.flushRecovered(m, flushes);
    }

    /** See {@link DbFlush#writeLevel0Table}. */
    io.bloomstore.core.manifest.FileMetaData writeLevel0Table(MemTable m) throws IOException {
        return flush.writeLevel0Table(m);
    }

    /** See {@link DbFlush#finishReadOnlyRecovery(MemTable)}. */
    void finishReadOnlyRecovery(MemTable replayed) {
        flush.finishReadOnlyRecovery(replayed);
    }

    /**
     * With the mutex held: queues background compactions while a level needs one that can run
     * beside those running and fewer than {@link #compactionLimit()} run. Its tables are marked
     * busy from now until it has been installed or abandoned.
     */
    void maybeScheduleCompaction() {
        while (!db.root.closed && !manual && options.autoCompaction() && db.root.backgroundError == null
                && running.size() < compactionLimit()) {
            Compaction c = picker.pick(db.versions.current(), busy, running);
            if (c == null) {
                c = rangeDeletionTarget();
            }
            if (c == null) {
                break;
            }
            running.add(c);
            for (FileMetaData f : c.allInputs()) {
                busy.add(f.fileNumber());
            }
            mostRunning = Math.max(mostRunning, running.size());
            intraLevel0Started += c.isIntraLevel0() ? 1 : 0;
            compactor.execute(new CompactionTask(c));
        }
        maybeScheduleCleanup();
    }

    /**
     * With the mutex held, when no level needs compaction: a compaction of a table the last cleanup
     * found holding data a range tombstone deletes for every reader ({@link RangeDeletionCleaner}):
     * a table of level ≥ 1 is rewritten in place, one of level 0 goes to level 1 with the rest of
     * level 0. Null when there is none that can run now.
     */
    private Compaction rangeDeletionTarget() {
        Version v = db.versions.current();
        for (long[] t = cleaner.takeTarget(busy); t != null; t = cleaner.takeTarget(busy)) {
            int level = (int) t[1];
            FileMetaData f = null;
            for (FileMetaData candidate : v.files(level)) {
                if (candidate.fileNumber() == t[0]) {
                    f = candidate;
                }
            }
            if (f == null) {
                continue;
            }
            Compaction c = level == 0 ? picker.whole(v, 0) : picker.rewrite(v, level, f);
            if (c != null && CompactionPicker.canRun(c, busy, running)) {
                return c;
            }
        }
        return null;
    }

    /**
     * With the mutex held: queues a range-deletion cleanup when the MANIFEST holds range tombstones
     * and the version changed since the last one looked (a flush brought tombstones, a compaction
     * dropped what they cover).
     */
    private void maybeScheduleCleanup() {
        Version v = db.versions.current();
        if (cleanupQueued || cleaning || manual || db.root.closed || db.readOnly || db.root.backgroundError != null
                || v.rangeTombstones().isEmpty() || v == cleanedVersion) {
            return;
        }
        cleanupQueued = true;
        compactor.execute(new CleanupTask());
    }

    /** A queued range-deletion cleanup (a class, not a lambda, as the compaction task). */
    private final class CleanupTask implements Runnable {
        @Override
        public void run() {
            mutex.lock();
            try {
                cleanupQueued = false;
                if (manual || cleaning || db.root.closed || compaction.cancelled() || db.root.backgroundError != null) {
                    return;
                }
                cleaning = true;
            } finally {
                mutex.unlock();
            }
            try {
                cleanUp();
            } catch (CompactionCancelledException e) {
                // Closing: nothing was logged.
            } catch (Throwable t) {
                compactionFailed(t);
            } finally {
                mutex.lock();
                try {
                    cleaning = false;
                    maybeScheduleCompaction();
                    db.queue.signalChange();
                } finally {
                    mutex.unlock();
                }
            }
        }
    }

    /**
     * Drops the tables range tombstones cover whole and removes the tombstones nothing is left
     * under ({@link RangeDeletionCleaner}); the caller is the one cleanup running, or
     * {@link #compact()}. The tables dropped are marked busy meanwhile, so no compaction takes them.
     */
    private void cleanUp() throws IOException {
        List<RangeDeletionCleaner.Drop> drops;
        mutex.lock();
        try {
            Version v = db.versions.current();
            cleanedVersion = v;
            drops = cleaner.droppable(v, busy);
            for (RangeDeletionCleaner.Drop d : drops) {
                busy.add(d.file().fileNumber());
            }
        } finally {
            mutex.unlock();
        }
        try {
            cleaner.run(drops);
        } finally {
            mutex.lock();
            try {
                for (RangeDeletionCleaner.Drop d : drops) {
                    busy.remove(d.file().fileNumber());
                }
            } finally {
                mutex.unlock();
            }
        }
    }

    /**
     * With the mutex held: how many compactions may run now. One, until level 0 holds
     * {@code parallelCompactionTrigger} tables (compaction falling behind); then
     * {@code maxBackgroundJobs}.
     */
    private int compactionLimit() {
        return parallelism(options, db.versions.current().files(0).size());
    }

    /**
     * Compaction threads allowed with {@code level0Tables} tables in level 0: running
     * compactions, and the ranges of a split level 0 → 1 one. One until
     * {@code parallelCompactionTrigger}, then {@code maxBackgroundJobs}.
     */
    static int parallelism(StoreOptions options, int level0Tables) {
        return level0Tables >= options.parallelCompactionTrigger() ? options.maxBackgroundJobs() : 1;
    }

    /**
     * One scheduled compaction. A class, not a lambda: a one-shot {@code put} whose open flushes the
     * WAL schedules one, and the process's first lambda costs it some 10 ms.
     */
    private final class CompactionTask implements Runnable {
        private final Compaction compaction;

        CompactionTask(Compaction compaction) {
            this.compaction = compaction;
        }

        @Override
        public void run() {
            if (!db.root.closed && !DbBackground.this.compaction.cancelled()) {
                preparingCompactions.run();
            }
            backgroundCompaction(compaction);
        }
    }

    /**
     * With the mutex held: whether no compaction, background or manual, is queued or running, so
     * none can install outputs until the mutex is released ({@link Ingester} links tables in then).
     */
    boolean compactionsIdle() {
        return running.isEmpty() && !manual;
    }

    /** Compactions queued or running now, for tests: each one's tables are its own. */
    List<Compaction> running() {
        mutex.lock();
        try {
            return List.copyOf(running);
        } finally {
            mutex.unlock();
        }
    }

    /** The most background compactions queued or running at once since open. */
    int mostRunning() {
        mutex.lock();
        try {
            return mostRunning;
        } finally {
            mutex.unlock();
        }
    }

    /** Ranges merged by split level 0 → 1 compactions (subcompactions) since open. */
    long subcompactionsRun() {
        return compaction.subcompactionsRun();
    }

    /** Merges inside level 0 started since open. */
    long intraLevel0Started() {
        mutex.lock();
        try {
            return intraLevel0Started;
        } finally {
            mutex.unlock();
        }
    }

    /** Compaction thread: runs {@code c} (a trivial move when it can be one), then schedules what is needed next. */
    private void backgroundCompaction(Compaction c) {
        activeCompactions.incrementAndGet();
        try {
            backgroundCompaction0(c);
        } finally {
            activeCompactions.decrementAndGet();
        }
    }

    private void backgroundCompaction0(Compaction c) {
        try {
            if (!db.root.closed && !compaction.cancelled()) {
                compaction.runBackground(c);
            }
        } catch (CompactionCancelledException e) {
            // The store is closing: the outputs are removed and the inputs stay live, nothing failed.
        } catch (Throwable t) {
            compactionFailed(t);
        } finally {
            mutex.lock();
            try {
                running.remove(c);
                for (FileMetaData f : c.allInputs()) {
                    busy.remove(f.fileNumber());
                }
                maybeScheduleCompaction();
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
        }
    }

    /**
     * A failed compaction, background or {@link #compact()}, makes the store read-only as a failed
     * flush does: its MANIFEST edit may be torn, and nothing may be appended after it.
     */
    private void compactionFailed(Throwable t) {
        mutex.lock();
        try {
            db.root.fail("compaction", t);
            db.queue.signalChange();
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Waits until no background compaction is queued or needed, then until the replaced tables no
     * reader holds are closed and deleted.
     */
    void awaitCompactions() throws IOException {
        db.checkOpen();
        if (db.readOnly) {
            return;
        }
        awaitCompactionsCaughtUp();
        db.tables.awaitReclaimed();
    }

    private void awaitCompactionsCaughtUp() throws IOException {
        mutex.lock();
        try {
            while (!db.root.closed && db.root.backgroundError == null && (!running.isEmpty() || cleanupQueued || cleaning
                    || options.autoCompaction() && picker.needsCompaction(db.versions.current()))) {
                db.queue.awaitChange();
            }
            IOException bg = db.root.backgroundError;
            if (bg != null) {
                throw new IOException("background work failed: " + bg.getMessage(), bg);
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Merges every level down into the bottom one; the caller has flushed the memtables. Waits for
     * running background compactions (and another {@code compact()}) first, and starts none while
     * it runs.
     */
    void compact() throws IOException {
        mutex.lock();
        try {
            while (manual) {
                db.queue.awaitChange();
            }
            manual = true;
            while (!running.isEmpty() || cleaning) {
                db.queue.awaitChange();
            }
        } finally {
            mutex.unlock();
        }
        try {
            Version v = db.versions.current();
            int bottom = 1;
            for (int level = 1; level < Version.NUM_LEVELS; level++) {
                if (!v.files(level).isEmpty()) {
                    bottom = level;
                }
            }
            boolean bottomRewritten = false;
            for (int level = 0; level <= bottom; level++) {
                db.checkOpen();
                IOException bg = db.root.backgroundError;
                if (bg != null) {
                    throw new IOException("compaction refused after an earlier failure: " + bg.getMessage(), bg);
                }
                // The bottom level is rewritten in place unless a merge from above already took all of
                // it, so garbage there (versions of released snapshots) goes too.
                Compaction c = level < bottom ? picker.whole(db.versions.current(), level)
                        : bottomRewritten ? null : picker.inPlace(db.versions.current(), level);
                if (c != null) {
                    // The bottom counts as rewritten only when every one of its tables was an input:
                    // tables outside the merged key range may still hold garbage.
                    boolean wholeBottom = c.outputLevel() == bottom
                            && (c.level() == bottom ? c.inputs() : c.nextInputs()).size()
                            == db.versions.current().files(bottom).size();
                    try {
                        compaction.runManual(c);
                    } catch (CompactionCancelledException e) {
                        throw e;
                    } catch (IOException | RuntimeException | Error e) {
                        compactionFailed(e);
                        throw e;
                    }
                    bottomRewritten = wholeBottom;
                }
            }
            // What the merges left under the range tombstones is gone now (unless a snapshot holds
            // it): the tombstones go too.
            try {
                cleanUp();
            } catch (CompactionCancelledException e) {
                throw e;
            } catch (IOException | RuntimeException | Error e) {
                compactionFailed(e);
                throw e;
            }
        } finally {
            mutex.lock();
            try {
                manual = false;
                maybeScheduleCompaction();
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
        }
    }

    /**
     * At close, after writers (and any {@code flush()} call) are drained: cancels running
     * compactions (each stops at its next entry, deletes its partial and finished outputs; its
     * inputs stay live), stops a running flush that has not reached its MANIFEST edit (within 64
     * entries) and skips queued ones, whose memtables' WAL segments are sealed (synced) before close
     * returns and are replayed by the next open (as RocksDB leaves them to its WAL); then waits
     * until every one of them has stopped, as LevelDB, RocksDB ({@code CancelAllBackgroundWork}
     * with wait) and Pebble do: once close returns, no thread of the store touches its directory.
     */
    void shutdown() {
        requestShutdown();
        flush.awaitStopped();
        compaction.awaitStopped();
        awaitTermination(compactor);
        mutex.lock();
        try {
            while (manual) {
                db.queue.awaitChange();
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * The first half of {@link #shutdown()}, which does not wait: running compactions and a
     * running flush stop at their next check, queued ones do not start. Close calls it before it
     * starts the WAL's final sync, so that the background threads wind down meanwhile.
     */
    void requestShutdown() {
        compaction.cancel();
        flush.requestStop();
    }

    static void awaitTermination(ExecutorService executor) {
        executor.shutdown();
        try {
            executor.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
