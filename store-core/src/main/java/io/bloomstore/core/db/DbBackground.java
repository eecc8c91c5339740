package io.bloomstore.core.db;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.LevelShape;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.compaction.Compaction;
import io.bloomstore.core.compaction.CompactionCancelledException;
import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.compaction.CompactionPicker;
import io.bloomstore.core.compaction.ShadowedVersions;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background work of an open store: the flush thread (immutable memtable → level-0 table →
 * MANIFEST edit → obsolete WAL segments deleted), compaction scheduling and running (background
 * and {@link #compact()}), and the background error that a failure of either leaves behind, after
 * which the store refuses writes.
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
    private static final Logger LOG = LoggerFactory.getLogger(DbBackground.class);
    private final DbState db;
    private final StoreOptions options;
    /**
     * A trivial move is refused when the moved range overlaps more than this many target-sized
     * tables two levels down (LevelDB's limit), so a move never sets up one huge merge.
     */
    private static final long MAX_GRANDPARENT_FILES = 10;
    /**
     * Bits per key a moved table's filter may have over the policy's choice for its new level:
     * policies that compute bits (Monkey) rarely repeat a value exactly; half a bit is about 5%
     * more filter memory at 10 bits per key.
     */
    private static final double MOVE_BITS_SLACK = 0.5;

    private final CompactionPicker picker;
    private final ExecutorService flusher;
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
    /** Flushes between retiring their memtable and deleting its obsolete files; under the mutex. */
    private int flushesFinishing;
    /** Set by close: a running compaction stops at its next entry and removes its outputs. */
    private volatile boolean cancelCompactions;
    /**
     * Set at close once writers are drained: a running flush stops before its MANIFEST edit and
     * queued ones do not start; their memtables are left to the WAL, which the next open replays.
     */
    private volatile boolean skipQueuedFlushes;
    /** Memtable entries a flush writes between two looks at {@link #skipQueuedFlushes}. */
    private static final int FLUSH_CANCEL_CHECK_ENTRIES = 1024;

    DbBackground(DbState db) {
        this.db = db;
        this.options = db.options;
        this.picker = new CompactionPicker(options);
        this.mutex = db.mutex();
        this.flusher = daemon("bloomstore-flush-" + db.dir.getFileName());
        this.compactor = daemons(options.maxBackgroundJobs(), "bloomstore-compact-" + db.dir.getFileName());
    }

    private static ExecutorService daemon(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    private static ExecutorService daemons(int threads, String name) {
        AtomicInteger made = new AtomicInteger();
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name + "-" + made.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    // ---- flush ----

    /** With the mutex held: queues the flush of the oldest immutable memtable. */
    void scheduleFlush() {
        flusher.execute(this::flushOldest);
    }

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
        if (db.backgroundError != null) {
            // An earlier flush failed and may have left a torn MANIFEST edit: append nothing more.
            return;
        }
        if (skipQueuedFlushes) {
            // Closing: this memtable's WAL segment was synced when it was switched out, so the
            // next open replays it; flushing it now would only make close wait.
            return;
        }
        MemTable m = db.view.immutables().get(0);
        long started = System.nanoTime();
        boolean finishing = false;
        try {
            FileMetaData meta = writeLevel0Table(m);
            long logNumber;
            VersionEdit edit;
            mutex.lock();
            try {
                ReadView v = db.view;
                logNumber = v.immutables().size() > 1 ? v.immutables().get(1).logNumber() : v.mem().logNumber();
                edit = new VersionEdit().setLogNumber(logNumber).setLastSequence(db.lastSequence);
                if (meta != null) {
                    edit.addFile(0, meta);
                }
            } finally {
                mutex.unlock();
            }
            // The MANIFEST write and fsync take milliseconds: writers go on meanwhile.
            db.versions.logAndApply(edit);
            mutex.lock();
            try {
                // Only this thread retires memtables, so the oldest is still m.
                ReadView v = db.view;
                installCurrent(v.mem(), List.copyOf(v.immutables().subList(1, v.immutables().size())));
                db.counters.flushes().increment();
                if (meta != null) {
                    db.counters.flushBytesWritten().add(meta.fileSize() + meta.filterFileSize());
                }
                maybeScheduleCompaction();
                // Writers stopped for a free memtable go on now, not after the deletions below:
                // unlinking a just-flushed 4 MiB WAL segment alone was 6% of the flush thread's
                // time in a 1 KiB fillseq (wall-clock profile), and writers waited for it.
                // Store.flush() waits for the deletions too (flushFinishing).
                flushesFinishing++;
                finishing = true;
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
            // Listing the directory and unlinking a just-flushed 4 MiB WAL segment take
            // milliseconds: not with writers locked out.
            ObsoleteFiles.delete(db.fs, ObsoleteFiles.choose(db, logNumber, false));
            logFlush(m, meta, started);
            db.cumulative.saveOrWarnAtMostEverySecond();
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
            LOG.debug("Flush of a memtable of {} entries stopped: the store is closing", m.entries());
        } catch (Throwable t) {
            // Any throwable, an Error too: lost with the thread, it would leave writers waiting forever.
            mutex.lock();
            try {
                if (finishing) {
                    flushesFinishing--;
                }
                db.fail("flush", t);
                db.queue.signalChange();
            } finally {
                mutex.unlock();
            }
        }
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
        if (m.isEmpty()) {
            return null;
        }
        long[] snapshotSequences;
        mutex.lock();
        try {
            snapshotSequences = db.pinnedSequences();
        } finally {
            mutex.unlock();
        }
        ShadowedVersions versions = new ShadowedVersions(snapshotSequences, false);
        long number = db.versions.newFileNumber();
        FilterChoice filter = options.filterPolicy().choose(0, db.levelShape(db.versions.current()).plus(0, m.entries()));
        TableBuilder builder = new TableBuilder(db.fs, db.dir, number, TableOptions.of(options).withFilter(filter),
                db.syncer, options.bytesPerSync());
        TableMetadata t;
        int sinceCheck = 0;
        try (InternalIterator it = m.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                if (++sinceCheck == FLUSH_CANCEL_CHECK_ENTRIES) {
                    sinceCheck = 0;
                    if (skipQueuedFlushes) {
                        throw new CompactionCancelledException("flush stopped: the store is closing");
                    }
                }
                if (versions.keep(it.key(), it.sequence(), it.type())) {
                    builder.add(it.key(), it.sequence(), it.type(), it.value());
                }
            }
            t = builder.finish();
        } catch (IOException | RuntimeException e) {
            builder.abandon();
            throw e;
        }
        db.tables.open(number, 0);
        return new FileMetaData(t.fileNumber(), t.fileSize(), t.filterFileSize(), t.smallestUserKey(),
                t.largestUserKey(), t.entries(), t.smallestSeq(), t.largestSeq());
    }

    /**
     * Recovery's last step, before the store is handed out: writes what was replayed from the WAL
     * as a level-0 table, records that the new WAL is the only one needed, and deletes what a
     * crash may have left behind.
     */
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

    void finishRecovery(MemTable replayed) throws IOException {
        FileMetaData meta = writeLevel0Table(replayed);
        VersionEdit edit = new VersionEdit().setLogNumber(db.view.mem().logNumber()).setLastSequence(db.lastSequence);
        if (meta != null) {
            edit.addFile(0, meta);
            db.counters.flushes().increment();
            db.counters.flushBytesWritten().add(meta.fileSize() + meta.filterFileSize());
        }
        Version v = db.versions.logAndApply(edit);
        db.installVersion(v, db.view.mem(), List.of());
        ObsoleteFiles.delete(db.fs, ObsoleteFiles.choose(db, db.view.mem().logNumber(), true));
        mutex.lock();
        try {
            maybeScheduleCompaction();
        } finally {
            mutex.unlock();
        }
    }

    // ---- compaction ----

    /**
     * With the mutex held: queues background compactions while a level needs one that can run
     * beside those running and fewer than {@code maxBackgroundJobs} run. Its tables are marked
     * busy from now until it has been installed or abandoned.
     */
    void maybeScheduleCompaction() {
        while (!db.closed && !manual && options.autoCompaction() && db.backgroundError == null
                && running.size() < options.maxBackgroundJobs()) {
            Compaction c = picker.pick(db.versions.current(), busy, running);
            if (c == null) {
                return;
            }
            running.add(c);
            c.allInputs().forEach(f -> busy.add(f.fileNumber()));
            mostRunning = Math.max(mostRunning, running.size());
            intraLevel0Started += c.isIntraLevel0() ? 1 : 0;
            compactor.execute(() -> backgroundCompaction(c));
        }
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
        try {
            if (!db.closed && !cancelCompactions) {
                if (c.isTrivialMove(MAX_GRANDPARENT_FILES * options.targetFileBytes()) && filtersFit(c)) {
                    moveTables(c);
                } else {
                    runCompaction(c);
                }
            }
        } catch (CompactionCancelledException e) {
            // The store is closing: the outputs are removed and the inputs stay live, nothing failed.
        } catch (Throwable t) {
            compactionFailed(t);
        } finally {
            mutex.lock();
            try {
                running.remove(c);
                c.allInputs().forEach(f -> busy.remove(f.fileNumber()));
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
            db.fail("compaction", t);
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
            while (!db.closed && db.backgroundError == null && (!running.isEmpty()
                    || options.autoCompaction() && picker.needsCompaction(db.versions.current()))) {
                db.queue.awaitChange();
            }
            IOException bg = db.backgroundError;
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
            while (!running.isEmpty()) {
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
                IOException bg = db.backgroundError;
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
                        runCompaction(c);
                    } catch (CompactionCancelledException e) {
                        throw e;
                    } catch (IOException | RuntimeException | Error e) {
                        compactionFailed(e);
                        throw e;
                    }
                    bottomRewritten = wholeBottom;
                }
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
     * Whether the tables of a trivial move already carry the filter the policy chooses for the
     * output level: none when it builds none there, else the same kind with the same bits per key
     * (up to {@link #MOVE_BITS_SLACK} more). A moved table keeps its filter, so only then does the
     * level end up as the policy wants it — no weaker filter (a missing key would cost more
     * reads than the policy's rate) and no filter the policy saves (optimize-for-hits, Monkey's
     * smaller deep filters). Otherwise the tables are merged, which builds the chosen filter. With
     * the default uniform policy every table fits.
     */
    private boolean filtersFit(Compaction c) {
        long moved = c.levelInputEntries();
        LevelShape shape = db.levelShape(db.versions.current()).plus(c.level(), -moved).plus(c.outputLevel(), moved);
        FilterChoice choice = options.filterPolicy().choose(c.outputLevel(), shape);
        for (FileMetaData f : c.inputs()) {
            TableHandle h = db.tables.acquire(f.fileNumber());
            try {
                TableReader r = h.reader();
                boolean fits = choice.builds()
                        ? r.hasFilter() && r.filterKind() == choice.kind()
                                && r.properties().bitsPerKey() >= choice.bitsPerKey()
                                && r.properties().bitsPerKey() <= choice.bitsPerKey() + MOVE_BITS_SLACK
                        : !r.hasFilter();
                if (!fits) {
                    return false;
                }
            } finally {
                h.release();
            }
        }
        return true;
    }

    /**
     * A trivial move, its tables marked busy. One MANIFEST edit takes the input tables to
     * the next level unchanged (no bytes read or written; their filters go with them), and their
     * filter answers count at the new level from then on. A failed edit makes the store read-only,
     * as a failed compaction does; the tables stay where they were.
     */
    private void moveTables(Compaction c) throws IOException {
        db.versions.logAndApply(c.moveEdit());
        mutex.lock();
        try {
            ReadView v = db.view;
            installCurrent(v.mem(), v.immutables());
            c.inputs().forEach(f -> db.tables.moved(f.fileNumber(), c.outputLevel()));
            db.counters.trivialMoves().increment();
            db.queue.signalChange();
        } finally {
            mutex.unlock();
        }
    }

    /**
     * With the compaction's tables marked busy (or from {@link #compact()}): merges the compaction's inputs into new tables at its output
     * level (filters chosen by the policy for that level), then installs the result with one
     * MANIFEST edit. The replaced tables leave the live set at once and are closed, unmapped and
     * deleted when their last reader lets go.
     */
    private void runCompaction(Compaction c) throws IOException {
        long started = System.nanoTime();
        long[] snapshotSequences;
        mutex.lock();
        try {
            snapshotSequences = db.pinnedSequences();
        } finally {
            mutex.unlock();
        }
        long moved = c.levelInputEntries();
        LevelShape shape = db.levelShape(db.versions.current()).plus(c.level(), -moved).plus(c.outputLevel(), moved);
        TableOptions tableOptions = TableOptions.of(options).withFilter(options.filterPolicy().choose(c.outputLevel(), shape));
        int outputLevel = c.outputLevel();
        // A merge inside level 0 writes one table: level-0 tables are searched one by one.
        long targetBytes = c.isIntraLevel0() ? Long.MAX_VALUE : options.targetFileBytes();
        CompactionJob job = new CompactionJob(c, new ShadowedVersions(snapshotSequences, c.bottommost()),
                targetBytes, () -> cancelCompactions);
        List<TableHandle> inputs = new ArrayList<>();
        List<InternalIterator> sources = new ArrayList<>();
        try {
            Map<Long, TableHandle> byNumber = new HashMap<>();
            for (FileMetaData f : c.allInputs()) {
                TableHandle h = db.tables.acquire(f.fileNumber());
                inputs.add(h);
                byNumber.put(f.fileNumber(), h);
            }
            // Level-0 inputs overlap: a source each. A deeper level's inputs are disjoint: one
            // concatenating source per level, so the merge heap holds a handful of sources, not one
            // per table of the output level.
            Function<FileMetaData, InternalIterator> open = f -> byNumber.get(f.fileNumber()).reader().iterator(false);
            if (c.level() == 0) {
                c.inputs().forEach(f -> sources.add(open.apply(f)));
            } else {
                sources.add(levelSource(c.inputs(), open));
            }
            if (!c.nextInputs().isEmpty()) {
                sources.add(levelSource(c.nextInputs(), open));
            }
            job.run(MergingIterator.forward(sources, null), new CompactionJob.Output() {
                @Override
                public TableBuilder newTable() throws IOException {
                    return new TableBuilder(db.fs, db.dir, db.versions.newFileNumber(), tableOptions, db.syncer,
                            options.bytesPerSync());
                }

                @Override
                public void finished(TableMetadata table) throws IOException {
                    db.tables.open(table.fileNumber(), outputLevel);
                }
            });
        } catch (IOException | RuntimeException | Error e) {
            job.outputs().forEach(f -> db.tables.drop(f.fileNumber(), true));
            throw e;
        } finally {
            closeAll(sources);
            inputs.forEach(TableHandle::release);
        }
        try {
            db.versions.logAndApply(c.edit(job.outputs()));
        } catch (IOException | RuntimeException | Error e) {
            // The edit may have reached the MANIFEST (a failed fsync says nothing about what the
            // file holds), so the outputs must stay on disk: recovery deletes them as orphans
            // when the edit did not survive.
            job.outputs().forEach(f -> db.tables.drop(f.fileNumber(), false));
            throw e;
        }
        mutex.lock();
        try {
            ReadView v = db.view;
            installCurrent(v.mem(), v.immutables());
            c.allInputs().forEach(f -> db.tables.drop(f.fileNumber(), true));
            db.counters.compactions().increment();
            db.counters.compactionBytesRead().add(c.inputBytes());
            db.counters.compactionBytesWritten().add(job.bytesWritten());
            db.queue.signalChange();
        } finally {
            mutex.unlock();
        }
        LOG.info("Compacted L{} -> L{}: {} tables ({} bytes) into {} tables ({} bytes, filters included; {} data blocks"
                        + " copied whole) in {} ms",
                c.level(), outputLevel, c.allInputs().size(), c.inputBytes(), job.outputs().size(), job.bytesWritten(),
                job.blocksCopied(), millisSince(started));
    }

    /** One source over tables of a level ≥ 1: the table itself, or a {@link LevelIterator} over several. */
    private static InternalIterator levelSource(List<FileMetaData> files,
                                                Function<FileMetaData, InternalIterator> open) {
        if (files.size() == 1) {
            return open.apply(files.get(0));
        }
        List<FileMetaData> sorted = new ArrayList<>(files);
        sorted.sort((a, b) -> Arrays.compareUnsigned(a.smallestKey(), b.smallestKey()));
        return new LevelIterator(sorted, open);
    }

    private void logFlush(MemTable m, FileMetaData meta, long started) {
        if (meta == null) {
            LOG.debug("Flushed an empty memtable in {} ms", millisSince(started));
        } else {
            LOG.info("Flushed memtable of {} entries ({} bytes) to L0 table {}: {} bytes + {} filter bytes in {} ms",
                    m.entries(), m.approximateBytes(), meta.fileNumber(), meta.fileSize(), meta.filterFileSize(),
                    millisSince(started));
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
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

    /**
     * At close, after writers (and any {@code flush()} call) are drained: cancels running
     * compactions (each stops at its next entry and deletes its outputs; its inputs stay live),
     * stops a running flush that has not reached its MANIFEST edit (within 1,024 entries) and
     * skips queued ones, whose memtables' WAL segments were synced when they were switched out and
     * are replayed by the next open (as RocksDB leaves them to its WAL), so close waits for no
     * flush's table to be written.
     */
    void shutdown() {
        requestShutdown();
        awaitTermination(flusher);
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
     * syncs the WAL, so that the background threads wind down meanwhile.
     */
    void requestShutdown() {
        cancelCompactions = true;
        skipQueuedFlushes = true;
    }

    private static void awaitTermination(ExecutorService executor) {
        executor.shutdown();
        try {
            executor.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
