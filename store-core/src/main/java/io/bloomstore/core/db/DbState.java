package io.bloomstore.core.db;

import io.bloomstore.core.LevelShape;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the write path ({@link DbWrite}), the background work ({@link DbBackground}) and the read
 * path ({@link DbRead}) of one keyspace of an open store share: its options, counters, tables and
 * published {@link ReadView}; and, in the default keyspace's state ({@link #root}), what every
 * keyspace shares: the files, the last sequence, the snapshots, the background error, the closed
 * flag and the list of keyspaces.
 *
 * <p>Thread safety: the view, last sequence, background error and closed flag are volatile and
 * read without a lock; they (and the snapshot registrations) change only under {@link #mutex()},
 * which is the {@link WriteQueue}'s — except the background error, which {@link #fail} sets once
 * from any thread (the WAL write runs with the mutex released).
 */
final class DbState {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DbState.class);
    }

    final FileSystem fs;
    final Path dir;
    final StoreOptions options;
    final StoreCounters counters;
    /** What merge operands, timed values and the compaction filter mean for this store. */
    final EntryRules rules;
    /** The counters since the store was created; saved by flushes (at most once a second unless asked) and at close. */
    final CountersFile cumulative;
    final VersionSet versions;
    final TableRegistry tables;
    final WriteQueue queue;
    final Set<SnapshotImpl> snapshots;
    /** WAL segments checkpoints and backups are copying: not deleted as obsolete meanwhile. */
    final FilePins pins;
    /**
     * The store's state: this object for the default keyspace, whose state also holds what every
     * keyspace shares (the last sequence, the background error, the closed flag, the WAL seal,
     * the memtable budget's account and the keyspaces themselves); read those through it.
     */
    final DbState root;
    /** This state's keyspace: its number and name. */
    final int keyspaceId;
    final String keyspaceName;
    /**
     * In the root: every keyspace's state, the default one first, replaced whole under the mutex
     * when a keyspace is created or dropped. A store without keyspaces has just itself here.
     */
    volatile DbState[] keyspaces;
    /**
     * In the root: the keyspace a drop has taken out of {@link #keyspaces} but not yet logged as
     * dropped, or null. The WAL segments its memtables need stay until the drop is logged: a crash
     * before that reopens the keyspace, unflushed writes included. Guarded by the mutex.
     */
    DbState dropping;
    /** This keyspace's background work (flushes and compactions) and reads; set once, right after construction. */
    DbBackground background;
    DbRead reads;
    /** Set under the mutex when the keyspace is dropped: its handles are refused from then on. */
    volatile boolean dropped;
    /**
     * The WAL's background syncs (writeback, seals, the final sync), which writers wait for. One pool
     * for every store of the JVM (a service with a store per partition must not get threads per
     * store): daemon threads made on demand, one per sync running at once, ended after a minute
     * idle. Only the application's threads (writers, close) submit here, so its threads are made by
     * them and run at the application's priority, never at a lowered background thread's
     * ({@code StoreOptions.backgroundNiceness}: Linux threads inherit their maker's nice value).
     * Every writer waits for its own syncs before it closes a file, so a closed store has no sync
     * running.
     */
    static final ExecutorService SYNCER = Executors.newCachedThreadPool(new SyncThreads("bloomstore-sync-"));
    /** The table files' background syncs as flushes and compactions write them: submitted by those threads. */
    static final ExecutorService TABLE_SYNCER = Executors.newCachedThreadPool(new SyncThreads("bloomstore-tsync-"));
    final ExecutorService syncer = SYNCER;
    /** What this store shares with others: pools, memtable budget, block cache. */
    final SharedResources resources;
    /** This store's share of the memtable budget; null for a store opened read-only. */
    volatile MemtableBudget.Account memtableAccount;
    final ExecutorService tableSyncer = TABLE_SYNCER;

    /** Names the sync pools' daemon threads. */
    private static final class SyncThreads implements ThreadFactory {
        private final String prefix;
        private final AtomicInteger count = new AtomicInteger();

        SyncThreads(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }

    /** Opened by {@code Store.openReadOnly}: no WAL, no flush or compaction, writes refused. */
    final boolean readOnly;
    volatile ReadView view;
    /** Reading threads' references on {@link #view}, so that a get takes no shared reference count. */
    final ViewCache readers;
    volatile long lastSequence;
    volatile IOException backgroundError;
    volatile boolean closed;
    /**
     * The newest seal of a WAL segment switched out ({@link DbWrite}): done once every segment older
     * than the current one is synced and closed. A flush waits for it before its MANIFEST edit makes
     * those segments obsolete. Set under the mutex.
     */
    volatile Future<?> walSeal = Futures.DONE;
    /**
     * The root's WAL as the write path uses it (null for a store opened read-only): a write
     * barrier that copies the WAL's files hands its buffered records over first
     * ({@link DbWal#flushBuffered}). Set once before the store is handed out.
     */
    DbWal wal;
    /** What point-in-time WAL recovery dropped at open, or null; set once before the store is handed out. */
    volatile String walRecoveryDropped;

    DbState(FileSystem fs, Path dir, StoreOptions options, StoreCounters counters, CountersFile cumulative,
            VersionSet versions, TableRegistry tables, long walNumber, long lastSequence, boolean readOnly) {
        this.readOnly = readOnly;
        this.root = this;
        this.keyspaceId = 0;
        this.keyspaceName = io.bloomstore.core.Keyspace.DEFAULT_NAME;
        this.keyspaces = new DbState[] {this};
        this.snapshots = ConcurrentHashMap.newKeySet();
        this.pins = new FilePins();
        this.fs = fs;
        this.dir = dir;
        this.queue = new WriteQueue(closedMessage(dir));
        this.options = options;
        this.rules = EntryRules.of(options);
        this.counters = counters;
        this.cumulative = cumulative;
        this.versions = versions;
        this.tables = tables;
        this.lastSequence = lastSequence;
        this.resources = SharedResources.of(options.resources());
        // Sized for this store's share of the memtable budget (the stores already holding one).
        long expected = Math.min(options.memtableBytes(), resources.memtableBudget().shareBytes());
        this.view = ReadView.of(new MemTable(walNumber, expected, options.memtableFilterRatio()), List.of(),
                new VersionRef(versions.current(), tables));
        this.readers = new ViewCache(this);
    }

    /**
     * The state of keyspace {@code id} of the store {@code root}, with its own options, counters,
     * tables and an empty memtable on WAL segment {@code walNumber}; everything else is the root's.
     */
    DbState(DbState root, int id, String name, StoreOptions options, TableRegistry tables, StoreCounters counters,
            long walNumber) {
        this.readOnly = root.readOnly;
        this.root = root;
        this.keyspaceId = id;
        this.keyspaceName = name;
        this.snapshots = root.snapshots;
        this.pins = root.pins;
        this.fs = root.fs;
        this.dir = root.dir;
        this.queue = root.queue;
        this.options = options;
        this.rules = EntryRules.of(options);
        this.counters = counters;
        this.cumulative = root.cumulative;
        this.versions = root.versions.scoped(id);
        this.tables = tables;
        this.resources = root.resources;
        this.view = ReadView.of(new MemTable(walNumber, root.expectedMemtableBytes(), options.memtableFilterRatio()),
                List.of(), new VersionRef(versions.current(), tables));
        this.readers = new ViewCache(this);
    }

    /** In the root: the state of keyspace {@code id}, or null when there is none (never was, or dropped). */
    DbState keyspace(int id) {
        for (DbState k : keyspaces) {
            if (k.keyspaceId == id) {
                return k;
            }
        }
        return null;
    }

    /** In the root: the state of the keyspace named {@code name}, or null. */
    DbState keyspace(String name) {
        for (DbState k : keyspaces) {
            if (k.keyspaceName.equals(name)) {
                return k;
            }
        }
        return null;
    }

    /**
     * With the mutex held: charges what the memtables hold now (the active one and those waiting
     * for their flush) to the memtable budget.
     */
    void chargeMemtables() {
        MemtableBudget.Account a = root.memtableAccount;
        if (a == null) {
            return;
        }
        long active = 0;
        long total = 0;
        for (DbState k : root.keyspaces) {
            ReadView v = k.view;
            long mem = v.mem().approximateBytes();
            active += mem;
            total += mem;
            List<MemTable> immutables = v.immutables();
            // Indexed: an iterator here was one object per write.
            for (int i = 0, n = immutables.size(); i < n; i++) {
                total += immutables.get(i).approximateBytes();
            }
        }
        a.update(total, active);
    }

    /**
     * What a new memtable of this store may expect to fill to: {@code memtableBytes}, or less when
     * its share of the memtable budget is smaller ({@link MemtableBudget#shareBytes()}). Sizes the
     * memtable's first value chunk and its filter, not its limit.
     */
    long expectedMemtableBytes() {
        MemtableBudget.Account a = root.memtableAccount;
        long configured = options.memtableBytes();
        return a == null ? configured : Math.min(configured, resources.memtableBudget().shareBytes());
    }

    ReentrantLock mutex() {
        return queue.mutex();
    }

    /**
     * With the mutex held: makes {@code next} the current version under a new view with the given
     * memtables, and lets go of the previous version's tables.
     */
    /**
     * The memtable a flush is retiring, from just before it logs its level-0 table
     * ({@link #retiringTable}) until it installs the version without it; null otherwise. Guarded
     * by the mutex. Another thread installing the current version in between (a compaction, an
     * ingestion) finds the table there already and leaves the memtable out. The table is marked
     * busy meanwhile, so no compaction takes it away before then.
     */
    MemTable retiring;
    /** The file number of {@link #retiring}'s table; guarded by the mutex. */
    long retiringTable = -1;

    void installVersion(Version next, MemTable mem, List<MemTable> immutables) {
        if (retiring != null && next.holds(0, retiringTable) && immutables.contains(retiring)) {
            // A flush logged this memtable's table but has not retired it yet: a view must never
            // hold both, or a scan would count its merge operands twice (ConcurrentMergeTest).
            immutables = new java.util.ArrayList<>(immutables);
            immutables.remove(retiring);
        }
        ReadView old = view;
        view = ReadView.of(mem, immutables, new VersionRef(next, tables));
        old.tables().release();
        readers.scrape();
        chargeMemtables();
    }

    /**
     * The current view with its tables retained; the caller releases {@code tables()}. A view
     * whose tables are let go was replaced (the loop takes the new one), or its store closed or its
     * keyspace dropped, which is the caller's error: a read of a keyspace checked live when called
     * and dropped since would otherwise spin here for ever.
     *
     * @throws IllegalStateException when the store is closed or the keyspace dropped
     */
    ReadView retainView() {
        while (true) {
            ReadView v = view;
            if (v.tables().retain()) {
                return v;
            }
            checkOpen();
            checkNotDropped();
        }
    }

    /** Throws the error a handle of a dropped keyspace gets once this keyspace is dropped. */
    void checkNotDropped() {
        if (dropped) {
            throw new IllegalStateException("keyspace " + keyspaceName + " of the store in " + dir + " was dropped");
        }
    }

    /** The entries per level of {@code v} with the measured hit ratios: what a filter policy decides on. */
    LevelShape levelShape(Version v) {
        long[] entries = new long[Version.NUM_LEVELS];
        double[] hitRatios = new double[Version.NUM_LEVELS];
        long[] probes = new long[Version.NUM_LEVELS];
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : v.files(level)) {
                entries[level] += f.entries();
            }
            hitRatios[level] = counters.level(level).hitRatio();
            probes[level] = counters.level(level).probes().sum();
        }
        return new LevelShape(entries, hitRatios, probes);
    }

    /**
     * Makes {@code failure} the store's background error unless there already is one: from then on
     * the store refuses writes (reads go on). The first failure is logged at ERROR with its cause;
     * later ones add nothing. Any throwable counts — an {@link Error} in a background thread would
     * otherwise die with the thread and leave writers waiting for a flush that never comes. The
     * caller wakes the waiters ({@link WriteQueue#signalChange()}) under the mutex.
     *
     * @param what the work that failed, for the message ("flush", "compaction", "WAL write")
     * @return the background error now in force
     */
    IOException fail(String what, Throwable failure) {
        if (root != this) {
            return root.fail(what, failure);
        }
        synchronized (this) {
            return failHere(what, failure);
        }
    }

    private IOException failHere(String what, Throwable failure) {
        if (backgroundError == null) {
            backgroundError = failure instanceof IOException io ? io
                    : new IOException(what + " failed: " + failure, failure);
            Log.LOG.error("store {}: {} failed; the store is read-only from now on (reopen it to recover)", dir, what,
                    failure);
        }
        return backgroundError;
    }

    /**
     * Refuses a write, flush or compaction on a store opened read-only.
     *
     * @throws IllegalStateException when the store is read-only
     */
    void checkWritable() {
        if (readOnly) {
            throw new IllegalStateException("the store in " + dir + " is open read-only: writes, flushes and "
                    + "compactions are refused (Store.open opens it for writing)");
        }
    }

    /**
     * Throws the {@link IllegalStateException} every public method of a closed store throws
     * ({@link #closedMessage}); callers (the Kafka Streams layer) may rely on the type, the message
     * is for people.
     */
    void checkOpen() {
        if (root.closed) {
            throw new IllegalStateException(closedMessage(dir));
        }
    }

    static String closedMessage(Path dir) {
        return "store " + dir + " is closed";
    }

    /**
     * The sequences the open snapshots pin, read under the mutex (which snapshots are registered
     * under). A loop, not a stream: a first flush in a fresh JVM would load and link some thirty
     * stream classes for it.
     */
    long[] pinnedSequences() {
        mutex().lock();
        try {
            long[] out = new long[snapshots.size()];
            int n = 0;
            for (SnapshotImpl s : snapshots) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, n + 1);
                }
                out[n++] = s.pinnedSequence();
            }
            return n == out.length ? out : Arrays.copyOf(out, n);
        } finally {
            mutex().unlock();
        }
    }
}
