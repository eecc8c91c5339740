package io.bloomstore.core.db;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.LevelShape;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.compaction.Compaction;
import io.bloomstore.core.compaction.CompactionCancelledException;
import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.compaction.ShadowedVersions;
import io.bloomstore.core.compaction.Subcompactions;
import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstones;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Running one compaction (RocksDB's compaction_job and the compaction half of
 * db_impl_compaction_flush): a trivial move (one MANIFEST edit), or a merge of the inputs into new
 * tables at the output level, logged with one MANIFEST edit and installed under the mutex.
 * Choosing and scheduling compactions is {@link DbBackground}'s.
 *
 * <p>Thread safety: each compaction runs on one thread with its tables marked busy by the
 * scheduler; the view changes under the store's mutex, the MANIFEST edit is logged without it.
 */
final class DbCompaction {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DbCompaction.class);
    }
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
    private final DbState db;
    private final StoreOptions options;
    private final ReentrantLock mutex;
    /**
     * The merges (one per key range) each compaction thread runs now, for close to see which are
     * inside a table's final sync.
     */
    private final Map<Thread, List<CompactionJob>> backgroundJobs = new ConcurrentHashMap<>();
    /** Threads for a split compaction's ranges beyond the first, which its own thread merges. */
    private final ExecutorService subcompactor;
    /** Ranges merged by split compactions since open; under the mutex. */
    private long subcompactionsRun;
    /** Set by close: a running compaction stops at its next entry and leaves its outputs to the next open. */
    private volatile boolean cancelled;

    DbCompaction(DbState db) {
        this.db = db;
        this.options = db.options;
        this.mutex = db.mutex();
        this.subcompactor = new LimitedExecutor(db.resources.compactionPool(), Math.max(1, options.maxBackgroundJobs() - 1));
    }

    /** A background compaction: a trivial move when it can be one, else a merge. */
    void runBackground(Compaction c) throws IOException {
        if (c.isTrivialMove(MAX_GRANDPARENT_FILES * options.targetFileBytes()) && filtersFit(c)) {
            moveTables(c);
        } else {
            runCompaction(c, true);
        }
    }

    /** A {@code compact()} step: always a merge. */
    void runManual(Compaction c) throws IOException {
        runCompaction(c, false);
    }

    /** At close: running merges stop at their next entry; queued ranges start and stop at once. */
    void cancel() {
        cancelled = true;
        subcompactor.shutdown();
    }

    boolean cancelled() {
        return cancelled;
    }

    /** After {@link #cancel()}: waits until no subcompaction runs. */
    void awaitStopped() {
        DbBackground.awaitTermination(subcompactor);
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
     * Whether the tables of a trivial move already carry the filter the policy chooses for the
     * output level: none when it builds none there, else the same kind with the same bits per key
     * (up to {@link #MOVE_BITS_SLACK} more). A moved table keeps its filter, so only then does the
     * level end up as the policy wants it — no weaker filter (a missing key would cost more
     * reads than the policy's rate) and no filter the policy saves (optimize-for-hits, Monkey's
     * smaller deep filters). Otherwise the tables are merged, which builds the chosen filter. With
     * the default uniform policy every table fits.
     */
    private boolean filtersFit(Compaction c) throws IOException {
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
            for (FileMetaData f : c.inputs()) {
                db.tables.moved(f.fileNumber(), c.outputLevel());
            }
            db.counters.trivialMoves().increment();
            db.queue.signalChange();
        } finally {
            mutex.unlock();
        }
    }

    /**
     * With the compaction's tables marked busy (or from {@link DbBackground#compact()}): merges the
     * compaction's inputs into new tables at its output level (filters chosen by the policy for
     * that level), a level 0 → 1 merge split by key range over this thread and the helper threads
     * ({@link Subcompactions}), then installs every output with one MANIFEST edit. The replaced
     * tables leave the live set at once and are closed, unmapped and deleted when their last
     * reader lets go.
     */
    private void runCompaction(Compaction c, boolean background) throws IOException {
        long started = System.nanoTime();
        long[] snapshotSequences = db.pinnedSequences();
        // The MANIFEST's range tombstones (not the memtables': see ShadowedVersions).
        RangeTombstones tombstones = db.versions.current().rangeTombstones();
        long moved = c.levelInputEntries();
        LevelShape shape = db.levelShape(db.versions.current()).plus(c.level(), -moved).plus(c.outputLevel(), moved);
        TableOptions tableOptions = TableOptions.of(options).withFilter(options.filterPolicy().choose(c.outputLevel(), shape));
        // A merge inside level 0 writes one table: level-0 tables are searched one by one.
        long targetBytes = c.isIntraLevel0() ? Long.MAX_VALUE : options.targetFileBytes();
        // Level 0 → 1 is split by key range over the background threads, each range at least
        // two target tables' worth of input (RocksDB's subcompactions); like a second compaction,
        // only once level 0 holds parallelCompactionTrigger tables.
        List<byte[]> bounds = Subcompactions.boundaries(c, DbBackground.parallelism(options, c.inputs().size()),
                2 * options.targetFileBytes());
        AtomicBoolean failed = new AtomicBoolean();
        List<CompactionJob> jobs = new ArrayList<>();
        for (int i = 0; i <= bounds.size(); i++) {
            jobs.add(new CompactionJob(c, new ShadowedVersions(snapshotSequences, c.bottommost(), tombstones), targetBytes,
                    new Stop(failed)).rewriting(db.rules, c.outputLevel()));
        }
        if (background) {
            backgroundJobs.put(Thread.currentThread(), jobs);
        }
        try {
            List<Future<?>> helpers = new ArrayList<>();
            for (int i = 1; i < jobs.size(); i++) {
                Callable<Void> task = new Range(c, jobs.get(i), tableOptions, bounds.get(i - 1),
                        i < bounds.size() ? bounds.get(i) : null, failed);
                try {
                    helpers.add(subcompactor.submit(task));
                } catch (RejectedExecutionException e) {
                    // The store closed since this compaction started: the range stops at once.
                    FutureTask<Void> inline = new FutureTask<>(task);
                    inline.run();
                    helpers.add(inline);
                }
            }
            Throwable failure = null;
            try {
                mergeRange(c, jobs.get(0), tableOptions, null, bounds.isEmpty() ? null : bounds.get(0), failed);
            } catch (IOException | RuntimeException | Error e) {
                failure = e;
            }
            for (Future<?> h : helpers) {
                // A range no pool thread took yet runs here: the pool is shared, and its threads
                // may all be compactions waiting for their own ranges (a deadlock otherwise).
                // A task started elsewhere or done returns from run() at once.
                if (h instanceof RunnableFuture<?> r) {
                    r.run();
                }
                Throwable t = Futures.await(h);
                if (failure == null || failure instanceof CompactionCancelledException && t != null
                        && !(t instanceof CompactionCancelledException)) {
                    failure = t == null ? failure : t;
                }
            }
            if (failure != null) {
                // Every range's finished outputs leave the live set and are deleted, a cancelled
                // compaction's too: a closed store leaves no file its version does not name.
                for (CompactionJob j : jobs) {
                    for (FileMetaData f : j.outputs()) {
                        db.tables.drop(f.fileNumber(), true);
                    }
                }
                throwUnchecked(failure);
            }
        } finally {
            if (background) {
                backgroundJobs.remove(Thread.currentThread());
            }
        }
        install(c, jobs, started);
    }

    /**
     * Merges the inputs' entries with user keys in [{@code from}, {@code to}) (null bounds open)
     * into {@code job}'s outputs; a failure stops the other ranges of the compaction.
     */
    private void mergeRange(Compaction c, CompactionJob job, TableOptions tableOptions, byte[] from, byte[] to,
                            AtomicBoolean failed) throws IOException {
        int outputLevel = c.outputLevel();
        List<TableHandle> inputs = new ArrayList<>();
        List<InternalIterator> sources = new ArrayList<>();
        try {
            Map<Long, TableHandle> byNumber = new HashMap<>();
            for (FileMetaData f : c.allInputs()) {
                if (f.overlaps(from, to)) {
                    TableHandle h = db.tables.acquire(f.fileNumber());
                    inputs.add(h);
                    byNumber.put(f.fileNumber(), h);
                }
            }
            // Level-0 inputs overlap: a source each. A deeper level's inputs are disjoint: one
            // concatenating source per level, so the merge heap holds a handful of sources, not one
            // per table of the output level.
            Function<FileMetaData, InternalIterator> open = new InputOpener(byNumber);
            List<FileMetaData> level = overlapping(c.inputs(), from, to);
            List<FileMetaData> next = overlapping(c.nextInputs(), from, to);
            if (c.level() == 0) {
                for (FileMetaData f : level) {
                    sources.add(open.apply(f));
                }
            } else if (!level.isEmpty()) {
                sources.add(levelSource(level, open));
            }
            if (!next.isEmpty()) {
                sources.add(levelSource(next, open));
            }
            CompactionJob.Merger merged = MergingIterator.forward(sources, from);
            job.run(to == null ? merged : new BoundedMerger(merged, to), new CompactionJob.Output() {
                @Override
                public TableBuilder newTable() throws IOException {
                    return new TableBuilder(db.fs, db.dir, db.versions.newFileNumber(), tableOptions, db.tableSyncer,
                            options.bytesPerSync());
                }

                @Override
                public void finished(TableMetadata table) throws IOException {
                    db.tables.open(table.fileNumber(), outputLevel);
                }
            });
        } catch (IOException | RuntimeException | Error e) {
            if (!(e instanceof CompactionCancelledException)) {
                failed.set(true);
            }
            throw e;
        } finally {
            closeAll(sources);
            for (TableHandle h : inputs) {
                h.release();
            }
        }
    }

    /** Logs the MANIFEST edit of a finished merge (every range's outputs) and installs the result. */
    private void install(Compaction c, List<CompactionJob> jobs, long started) throws IOException {
        int outputLevel = c.outputLevel();
        List<FileMetaData> outputs = new ArrayList<>();
        long bytesWritten = 0;
        long blocksCopied = 0;
        for (CompactionJob j : jobs) {
            outputs.addAll(j.outputs());
            bytesWritten += j.bytesWritten();
            blocksCopied += j.blocksCopied();
        }
        try {
            db.versions.logAndApply(c.edit(outputs));
        } catch (IOException | RuntimeException | Error e) {
            // The edit may have reached the MANIFEST (a failed fsync says nothing about what the
            // file holds), so the outputs must stay on disk: recovery deletes them as orphans
            // when the edit did not survive.
            for (FileMetaData f : outputs) {
                db.tables.drop(f.fileNumber(), false);
            }
            throw e;
        }
        mutex.lock();
        try {
            ReadView v = db.view;
            installCurrent(v.mem(), v.immutables());
            for (FileMetaData f : c.allInputs()) {
                db.tables.drop(f.fileNumber(), true);
            }
            db.counters.compactions().increment();
            db.counters.compactionBytesRead().add(c.inputBytes());
            db.counters.compactionBytesWritten().add(bytesWritten);
            if (jobs.size() > 1) {
                subcompactionsRun += jobs.size();
            }
            db.queue.signalChange();
        } finally {
            mutex.unlock();
        }
        Log.LOG.info("Compacted L{} -> L{}: {} tables ({} bytes) into {} tables ({} bytes, filters included; {} data blocks"
                        + " copied whole{}) in {} ms",
                c.level(), outputLevel, c.allInputs().size(), c.inputBytes(), outputs.size(), bytesWritten,
                blocksCopied, jobs.size() > 1 ? "; " + jobs.size() + " key ranges merged at once" : "",
                millisSince(started));
    }

    /** Subcompactions run (each range of a split compaction counts) since open; under the mutex. */
    long subcompactionsRun() {
        mutex.lock();
        try {
            return subcompactionsRun;
        } finally {
            mutex.unlock();
        }
    }

    private static void throwUnchecked(Throwable t) throws IOException {
        Futures.rethrow(t, "subcompaction failed: " + t);
    }

    /** One source over tables of a level ≥ 1: the table itself, or a {@link LevelIterator} over several. */
    private static InternalIterator levelSource(List<FileMetaData> files,
                                                Function<FileMetaData, InternalIterator> open) {
        if (files.size() == 1) {
            return open.apply(files.get(0));
        }
        List<FileMetaData> sorted = new ArrayList<>(files);
        sorted.sort(BY_SMALLEST_KEY);
        return new LevelIterator(sorted, open);
    }

    /*
     * The merge's helpers are classes, not lambdas or streams: a compaction a one-shot command's
     * open starts (and its close abandons) spun a dozen lambda and stream classes on the
     * background threads, competing with the command for the processor.
     */

    /** Tables of {@code files} whose key range overlaps [{@code from}, {@code to}) (null bounds open). */
    private static List<FileMetaData> overlapping(List<FileMetaData> files, byte[] from, byte[] to) {
        List<FileMetaData> out = new ArrayList<>(files.size());
        for (FileMetaData f : files) {
            if (f.overlaps(from, to)) {
                out.add(f);
            }
        }
        return out;
    }

    private static final Comparator<FileMetaData> BY_SMALLEST_KEY = new Comparator<>() {
        @Override
        public int compare(FileMetaData a, FileMetaData b) {
            return Arrays.compareUnsigned(a.smallestKey(), b.smallestKey());
        }
    };

    /** Opens an input table's iterator through the handle the merge holds on it. */
    private static final class InputOpener implements Function<FileMetaData, InternalIterator> {
        private final Map<Long, TableHandle> byNumber;

        InputOpener(Map<Long, TableHandle> byNumber) {
            this.byNumber = byNumber;
        }

        @Override
        public InternalIterator apply(FileMetaData f) {
            return byNumber.get(f.fileNumber()).readerUnchecked().iterator(false);
        }
    }

    /** Whether a merge must stop: the store is closing, or another range of it failed. */
    private final class Stop implements BooleanSupplier {
        private final AtomicBoolean failed;

        Stop(AtomicBoolean failed) {
            this.failed = failed;
        }

        @Override
        public boolean getAsBoolean() {
            return cancelled || failed.get();
        }
    }

    /** One key range of a split merge, on a subcompaction thread. */
    private final class Range implements Callable<Void> {
        private final Compaction c;
        private final CompactionJob job;
        private final TableOptions tableOptions;
        private final byte[] from;
        private final byte[] to;
        private final AtomicBoolean failed;

        Range(Compaction c, CompactionJob job, TableOptions tableOptions, byte[] from, byte[] to,
              AtomicBoolean failed) {
            this.c = c;
            this.job = job;
            this.tableOptions = tableOptions;
            this.from = from;
            this.to = to;
            this.failed = failed;
        }

        @Override
        public Void call() throws IOException {
            mergeRange(c, job, tableOptions, from, to, failed);
            return null;
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
}
