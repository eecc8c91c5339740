package io.bloomstore.core.db;

import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Making room for a write group, as LevelDB's {@code MakeRoomForWrite} and RocksDB's
 * {@code PreprocessWrite} and {@code SwitchMemtable}: the level-0 slowdown ({@link WriteSlowdown})
 * and stop, the wait for the flush thread, and the switch of every keyspace to a new memtable and
 * a new WAL segment, the full memtables queued for flushing by {@link DbBackground}. Also the
 * memtable budget's switch between write groups, the wait for the budget before a write enters the
 * {@link WriteQueue}, and the forced switch and wait of a flush ({@link #flushAtBarrier}). The
 * group commit itself stays with {@link DbWrite}.
 *
 * <p>Thread safety: each method says where it runs. Most run with the store's mutex held, by a
 * write group's leader or a barrier, when no leader is writing the WAL: so the switch of the WAL
 * segment ({@link DbWal#switchTo}) never races a group's WAL write. {@link #switchForBudget} may be
 * called from any thread (it takes the queue through a barrier), {@link #awaitMemtableRoom} by a
 * writer before it queues, without the mutex.
 */
final class MemtableSwitcher {
    /** Immutable memtables waiting for the flush thread before writers must wait. */
    private static final int MAX_IMMUTABLES = 2;
    /**
     * The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a
     * one-shot command). Named for {@link DbWrite}, as {@link WriteSlowdown}'s: the write path logs
     * under one name.
     */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DbWrite.class);
    }

    private final DbState db;
    /** The store's WAL, whose segment a switch replaces. */
    private final DbWal wal;
    /** The slowdown while level 0 is at its trigger; under the mutex. */
    private final WriteSlowdown slowdown;

    MemtableSwitcher(DbState db, DbWal wal) {
        this.db = db;
        this.wal = wal;
        this.slowdown = new WriteSlowdown(db);
    }

    /**
     * With the mutex held: switches to a new memtable when the current one is full (or forced).
     * Backpressure (with background compaction on): once level 0 holds {@code l0SlowdownTrigger}
     * tables, writes are held to {@code delayedWriteRate} bytes per second (RocksDB's delayed
     * write rate): each group adds its bytes' worth of time to a debt, and a group sleeps once the
     * debt reaches a millisecond, so small writes pass without a pause each; at
     * {@code l0StopTrigger} tables, or with {@link #MAX_IMMUTABLES} memtables waiting for the flush
     * thread, a full memtable is not switched until compaction or flush catches up.
     *
     * @param groupBytes the group's approximate key and value bytes, which the delay is paid for
     */
    void makeRoomForWrite(boolean force, long groupBytes) throws IOException {
        boolean allowDelay = !force && db.options.autoCompaction();
        long stoppedSince = 0;
        while (true) {
            IOException bg = db.root.backgroundError;
            if (bg != null) {
                throw new IOException("store refuses writes after an earlier failure: " + bg.getMessage(), bg);
            }
            int level0 = maxLevel0();
            if (allowDelay && level0 >= db.options.l0SlowdownTrigger()) {
                allowDelay = false;
                long wait = slowdown.delayFor(level0, groupBytes);
                if (wait > 0) {
                    db.queue.unlocked(() -> WriteSlowdown.pause(wait));
                    continue;
                }
            }
            slowdown.endIfBelow(level0);
            if (memtablesHaveRoom(force)) {
                logResumed(stoppedSince);
                return;
            }
            int waiting = maxImmutables();
            if (waiting >= MAX_IMMUTABLES) {
                if (stoppedSince == 0) {
                    stoppedSince = System.nanoTime();
                    // A burst outrunning one flush: normal, and short, unlike a level-0 stop.
                    Log.LOG.info("Writes stopped: {} full memtables wait for the flush thread", waiting);
                }
                db.queue.awaitChange();
                continue;
            }
            if (db.options.autoCompaction() && level0 >= db.options.l0StopTrigger()) {
                db.counters.writeStops().increment();
                if (stoppedSince == 0) {
                    stoppedSince = System.nanoTime();
                    Log.LOG.warn("Writes stopped: level 0 holds {} tables (stop trigger {}); waiting for compaction",
                            level0, db.options.l0StopTrigger());
                }
                for (DbState k : db.root.keyspaces) {
                    k.background.maybeScheduleCompaction();
                }
                db.queue.awaitChange();
                continue;
            }
            switchMemTables();
            logResumed(stoppedSince);
            stoppedSince = 0;
            force = false;
        }
    }

    /** With the mutex held: the most level-0 tables a keyspace has (the stores' triggers apply per keyspace). */
    private int maxLevel0() {
        DbState[] all = db.root.keyspaces;
        int level0 = all[0].view.version().files(0).size();
        for (int i = 1; i < all.length; i++) {
            level0 = Math.max(level0, all[i].view.version().files(0).size());
        }
        return level0;
    }

    /**
     * With the mutex held: whether writes may go on without a switch: every keyspace's active
     * memtable is under its {@code memtableBytes}, or, when {@code force}, all of them are empty.
     */
    private boolean memtablesHaveRoom(boolean force) {
        for (DbState k : db.root.keyspaces) {
            MemTable m = k.view.mem();
            if (force ? !m.isEmpty() : m.approximateBytes() >= k.options.memtableBytes()) {
                return false;
            }
        }
        return true;
    }

    /** With the mutex held: the most memtables a keyspace has waiting for its flush. */
    private int maxImmutables() {
        int n = 0;
        for (DbState k : db.root.keyspaces) {
            n = Math.max(n, k.view.immutables().size());
        }
        return n;
    }

    private static void logResumed(long stoppedSince) {
        if (stoppedSince != 0) {
            Log.LOG.info("Writes resumed after {} ms stopped", (System.nanoTime() - stoppedSince) / 1_000_000);
        }
    }

    /**
     * With the mutex held: starts a new WAL segment and memtable, and queues the full one for
     * flushing. The finished segment is sealed on a sync thread ({@link DbWal#seal}), not here: its
     * sync waited for the running writeback and then synced up to a megabyte, 12–27 ms of a
     * writer's time at every switch (JFR, 1 KiB updates), as RocksDB leaves closed logs to be
     * synced later. What the sync before the switch guaranteed still holds, because nothing syncs
     * the new segment before the seal is done and recorded in it ({@link DbWal#recordSeal}).
     */
    private void switchMemTables() throws IOException {
        // Records writes left in the process (walBufferBytes) reach the finished segment's file
        // before any of the next segment's can: its seal, which would write them, runs later, and a
        // kill in between would leave a hole between the two segments.
        wal.flushBuffered();
        long walNumber = db.versions.newFileNumber();
        LogWriter next;
        try {
            next = new LogWriter(db.fs.create(FileNames.wal(db.dir, walNumber)), LogFormat.WAL_MAGIC);
        } catch (IOException e) {
            // Like every write-path I/O failure this makes the store read-only.
            db.root.fail("WAL segment switch", e);
            throw e;
        }
        wal.switchTo(next);
        // Every keyspace moves to the new segment together (RocksDB's atomic flush): so the oldest
        // segment a keyspace still needs is always that of its oldest unflushed memtable, and a
        // keyspace written rarely never holds the WAL back. An empty memtable is just replaced.
        for (DbState k : db.root.keyspaces) {
            ReadView v = k.view;
            MemTable fresh = new MemTable(walNumber, k.expectedMemtableBytes(), k.options.memtableFilterRatio());
            if (v.mem().isEmpty()) {
                k.view = new ReadView(fresh, v.immutables(), v.tables(), v.rangeDeletions());
                continue;
            }
            List<MemTable> imm = new ArrayList<>(v.immutables());
            imm.add(v.mem());
            k.view = new ReadView(fresh, List.copyOf(imm), v.tables(), v.rangeDeletions());
            k.background.scheduleFlush();
        }
        db.chargeMemtables();
    }

    /**
     * On the memtable budget's thread: switches the active memtable (queueing its flush) when it
     * holds anything and no wait is needed, between write groups; answers whether it did.
     */
    boolean switchForBudget() {
        if (db.root.closed || db.readOnly || db.root.backgroundError != null) {
            return false;
        }
        boolean[] switched = {false};
        try {
            db.queue.submitBarrier(group -> {
                if (!memtablesHaveRoom(true) && maxImmutables() < MAX_IMMUTABLES && db.root.backgroundError == null) {
                    switchMemTables();
                    switched[0] = true;
                }
            });
        } catch (IOException | RuntimeException e) {
            // Closed or failed meanwhile: nothing to switch.
            return false;
        }
        return switched[0];
    }

    /** Before a write enters the queue: waits while the stores' memtables hold the whole budget. */
    void awaitMemtableRoom() throws IOException {
        if (db.root.memtableAccount == null) {
            return;
        }
        try {
            db.resources.memtableBudget().awaitRoom();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for the memtable budget");
        }
    }

    /** With the mutex held: whether a keyspace has a memtable waiting for its flush, or a flush finishing. */
    private boolean flushesPending() {
        for (DbState k : db.root.keyspaces) {
            if (!k.view.immutables().isEmpty() || k.background.flushFinishing()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Run by a barrier ({@link WriteQueue#submitBarrier}), mutex held: switches the memtable (if it
     * holds anything) and waits until every immutable memtable is flushed. Afterwards the memtables
     * are empty and the current WAL segment holds no write.
     */
    void flushAtBarrier() throws IOException {
        makeRoomForWrite(true, 0);
        while (flushesPending() && db.root.backgroundError == null) {
            db.queue.awaitChange();
        }
        IOException bg = db.root.backgroundError;
        if (bg != null) {
            throw new IOException("flush failed: " + bg.getMessage(), bg);
        }
    }
}
