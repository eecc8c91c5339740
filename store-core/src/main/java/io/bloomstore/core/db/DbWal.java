package io.bloomstore.core.db;

import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogWriter;
import io.bloomstore.core.wal.RecordBuffer;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;

/**
 * The store's write-ahead log as the write path uses it: the current segment, its background
 * writeback, the seal of each segment a memtable switch finishes (synced, closed, the directory
 * synced, in order), the seal record a segment's first sync writes, and the final sync and
 * clean-close mark at close. See {@code docs/format/wal.md}.
 *
 * <p>Thread safety: the write queue's leader, or a thread holding the mutex while no leader
 * writes, uses it; the seals, writebacks and final sync run on the store's sync pool.
 */
final class DbWal {
    /** A finished writeback or seal ({@link Futures#DONE}). */
    private static final Future<?> DONE = Futures.DONE;

    private final DbState db;
    private LogWriter wal;
    /** The WAL size at the last background writeback started; touched by the leader or under the mutex with no leader. */
    private long writebackAt;
    /** The running (or last) background writeback of {@link #wal}. */
    private Future<?> writeback = DONE;
    /**
     * The newest seal a memtable switch started ({@link #seal}): done once every segment older than
     * {@link #wal} is synced and closed and the directory synced after {@link #wal}'s creation.
     * Touched by the leader (or under the mutex with no leader); mirrored in {@link DbState#walSeal}.
     */
    private Future<?> sealing = DONE;
    /**
     * Whether {@link #wal} holds its seal record. Until it does, nothing syncs {@link #wal}: its
     * first sync (a sync write's, a writeback's or close's) waits for {@link #sealing} and writes
     * the seal record first. The segment the open made gets one with its first group (its seal is
     * done: the open synced the directory), so that a torn tail in a segment the open kept is
     * reported as damage once a write after the open may have been synced, as before seal records
     * existed. Touched by the leader, or at close.
     */
    private boolean sealRecorded;
    /**
     * The background flush of the writes an open replayed after a crash ({@link DbFlush.Recovery}),
     * {@link #DONE} when there is none: until it is logged nothing syncs any segment this process
     * writes (its first sync waits for it, as for {@link #sealing}). Set before the store is handed out.
     */
    private Future<?> recovering = DONE;

    DbWal(DbState db, LogWriter wal) {
        this.db = db;
        this.wal = wal;
        db.root.wal = this;
    }

    /**
     * At a write barrier (mutex held, no leader writing): hands the records that writes left
     * buffered in the process ({@code walBufferBytes}) to the segment file, so that a copy of the
     * files made now holds every acknowledged write. A failure makes the store read-only, as a
     * leader's failed WAL write does.
     */
    void flushBuffered() throws IOException {
        if (wal == null) {
            return;
        }
        try {
            wal.flush();
        } catch (IOException | RuntimeException e) {
            db.root.fail("WAL write", e);
            throw e;
        }
    }

    /** The current segment (null for a store opened read-only). */
    LogWriter current() {
        return wal;
    }

    /**
     * The leader, mutex released, before its group's records: the segment's first sync waits for
     * the seal of the one before it; once that is done (or this group syncs) the seal record goes
     * first ({@link #recordSeal}).
     */
    void maybeRecordSeal(LogWriter log, boolean sync, long firstSequence, RecordBuffer rec) throws IOException {
        Future<?> seal = sealing;
        if (!sealRecorded && (sync || (seal == DONE || seal.isDone()) && (recovering == DONE || recovering.isDone()))) {
            recordSeal(log, firstSequence, rec);
        }
    }

    /** The open's last step: no segment is synced before {@code recovered} is done ({@link #recovering}). */
    void syncAfter(Future<?> recovered) {
        recovering = recovered;
    }

    /**
     * With the mutex held and no leader writing: {@code next} becomes the current segment, and the
     * one it replaces is sealed on the sync pool after the seal before it ({@link #seal}).
     */
    void switchTo(LogWriter next) {
        LogWriter old = wal;
        Future<?> oldWriteback = writeback;
        Future<?> previous = sealing;
        sealing = db.syncer.submit(new Seal(old, oldWriteback, previous));
        db.root.walSeal = sealing;
        wal = next;
        writebackAt = 0;
        writeback = DONE;
        sealRecorded = false;
    }

    /**
     * Sync thread: seals a segment a memtable switch finished, after the seal of the one before it
     * and after its own running writeback: syncs it (so a crash can never keep a newer segment's
     * synced records but lose part of this one, which recovery would read as a hole), closes it,
     * and syncs the directory, which makes the name of the segment created after it durable (a
     * sync write there is durable only if its segment's name is: a power loss could otherwise drop
     * the whole segment, and recovery, seeing it as the newest, would find no hole). A failure
     * makes the store read-only, as a writer's failed sync does; what a failed sync left in the
     * segment is unknown, so every later seal fails too.
     */
    private Void seal(LogWriter old, Future<?> oldWriteback, Future<?> previous) throws IOException {
        Throwable failure = Futures.await(previous);
        Futures.await(oldWriteback);
        if (failure == null) {
            try {
                IOException bg = db.root.backgroundError;
                if (bg != null) {
                    throw new IOException("store refuses writes after an earlier failure: " + bg.getMessage(), bg);
                }
                old.sync();
                db.fs.syncDirectory(db.dir);
            } catch (IOException | RuntimeException | Error e) {
                failure = e;
            }
        }
        try {
            old.close();
        } catch (IOException | RuntimeException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure == null) {
            return null;
        }
        IOException error = db.root.fail("WAL segment seal", failure);
        db.mutex().lock();
        try {
            db.queue.signalChange();
        } finally {
            db.mutex().unlock();
        }
        throw failure instanceof IOException io ? io : new IOException("WAL segment seal failed: " + failure, error);
    }

    /**
     * The leader, mutex released, before the current segment's first sync or once its seal is done:
     * waits for the seal ({@link #sealing}), then appends the seal record at the group's first
     * sequence number. A segment's records before its seal record were written while an older
     * segment's tail may not have been durable; recovery may drop them after a crash
     * ({@code docs/format/wal.md}), and none of them was synced.
     */
    private void recordSeal(LogWriter log, long sequence, RecordBuffer rec) throws IOException {
        Throwable failed = Futures.await(recovering);
        if (failed != null) {
            throw failed instanceof IOException io ? io
                    : new IOException("flush of the writes recovered from the WAL failed: " + failed, failed);
        }
        failed = Futures.await(sealing);
        if (failed != null) {
            throw failed instanceof IOException io ? io : new IOException("WAL segment seal failed: " + failed, failed);
        }
        rec.clear();
        BatchCodec.encodeSeal(sequence, rec);
        log.append(rec.array(), 0, rec.size());
        sealRecorded = true;
    }

    /**
     * At close, once no writer is left: starts the WAL's final sync on a sync thread, after any
     * running writeback, so that the closing thread stops the background work and closes the
     * tables meanwhile instead of after it (the sync waits for the file system's journal, tens of
     * milliseconds on a busy machine). {@link #close(Future)} waits for it.
     */
    Future<?> startFinalSync(long sequence) {
        LogWriter log = wal;
        if (log == null) {
            return DONE;
        }
        Future<?> running = writeback;
        Future<?> seals = sealing;
        boolean needsSeal = !sealRecorded;
        return db.syncer.submit(new FinalSync(log, running, seals, needsSeal, sequence));
    }

    /**
     * The WAL's final sync at close (a class, not a lambda: a one-shot command's close would link
     * the process's first lambda, some 6 ms).
     */
    private final class FinalSync implements Callable<Void> {
        private final LogWriter log;
        private final Future<?> running;
        private final Future<?> seals;
        private final boolean needsSeal;
        private final long sequence;

        FinalSync(LogWriter log, Future<?> running, Future<?> seals, boolean needsSeal, long sequence) {
            this.log = log;
            this.running = running;
            this.seals = seals;
            this.needsSeal = needsSeal;
            this.sequence = sequence;
        }

        @Override
        public Void call() throws IOException {
            Throwable sealFailure = Futures.await(seals);
            Throwable writebackFailure = Futures.await(running);
            IOException bg = db.root.backgroundError;
            // After a failure the WAL's state on disk is unknown: it is not synced or sealed now,
            // and close reports the first failure instead of returning as if all were durable.
            if (bg != null) {
                throw new IOException("the store of " + db.dir + " failed before close, so its last writes may not be"
                        + " durable: " + bg.getMessage(), bg);
            }
            if (sealFailure != null || writebackFailure != null) {
                Throwable first = sealFailure != null ? sealFailure : writebackFailure;
                throw new IOException("a WAL sync failed before close, so the last writes may not be durable: "
                        + first.getMessage(), first);
            }
            RecordBuffer rec = new RecordBuffer(16);
            if (log.holdsNoRecords()) {
                // Nothing was written to this segment (the common case after a flush, and for a
                // store only read since its open): every older segment is sealed (synced) above,
                // so there is nothing the mark could be torn from, and it needs no sync of its
                // own. A power loss that drops or tears it costs the next open its shortcut, never
                // a write. So a store closed after a flush pays no fsync here.
                if (needsSeal) {
                    recordSeal(log, sequence, rec);
                }
                rec.clear();
                BatchCodec.encodeSeal(sequence, rec);
                log.append(rec.array(), 0, rec.size());
                log.append(rec.array(), 0, rec.size());
                log.flush();
                return null;
            }
            if (needsSeal) {
                // No writer is left: this thread is the segment's only user now.
                recordSeal(log, sequence, rec);
            }
            log.sync();
            // The clean-close mark (WalReplay): two seal records, appended only once everything
            // before them is durable, and synced so that a power loss cannot tear them. A segment
            // holds at most one seal otherwise. The next open keeps this process's segments as they
            // are only when it finds the mark.
            rec.clear();
            BatchCodec.encodeSeal(sequence, rec);
            log.append(rec.array(), 0, rec.size());
            log.append(rec.array(), 0, rec.size());
            log.sync();
            return null;
        }
    }

    /** Waits for the final sync {@link #startFinalSync()} started and closes the WAL, even when the sync failed. */
    void close(Future<?> finalSync) throws IOException {
        if (wal == null) {
            return;
        }
        try {
            Futures.rethrow(Futures.await(finalSync), "WAL sync at close failed");
        } finally {
            wal.close();
        }
    }

    /**
     * Called by the leader after its group reached the WAL file: once
     * {@link io.bloomstore.core.StoreOptions#bytesPerSync()} more have been written since the last
     * writeback started, and that one is done, syncs the segment on a background sync thread
     * (RocksDB's wal_bytes_per_sync): the segment's seal, after the memtable switch, then finds
     * little left to write. Not before the segment holds its seal record ({@link #recordSeal}). That sync, of a whole 4 MiB segment, was 14% of a
     * single writer's time with 1 KiB values (fillseq, JFR native samples). Only bytes already handed to the file are synced, so the
     * leader's later appends run alongside. A failed sync makes the store read-only, as a
     * writer's failed sync does.
     */
    void maybeStartWriteback(LogWriter log) {
        long size = log.size();
        long every = db.options.bytesPerSync();
        // DONE is checked by identity, so the isDone call only ever meets the executor's futures:
        // a second receiver type there, showing up after the first writeback, deoptimised the
        // compiled group commit in a fresh JVM and had C2 compile it again.
        Future<?> running = writeback;
        if (every == 0 || !sealRecorded || size - writebackAt < every || running != DONE && !running.isDone()) {
            return;
        }
        writebackAt = size;
        writeback = db.syncer.submit(new Writeback(log));
    }

    /*
     * The sync pool's tasks are classes, not lambdas: each lambda's first use spins a class (and
     * the process's first links the lambda machinery, some 6 ms), on the writer's thread at a fresh
     * JVM's first memtable switch or writeback.
     */

    /** Seals a finished segment ({@link #seal}). */
    private final class Seal implements Callable<Void> {
        private final LogWriter old;
        private final Future<?> oldWriteback;
        private final Future<?> previous;

        Seal(LogWriter old, Future<?> oldWriteback, Future<?> previous) {
            this.old = old;
            this.oldWriteback = oldWriteback;
            this.previous = previous;
        }

        @Override
        public Void call() throws IOException {
            return seal(old, oldWriteback, previous);
        }
    }

    /** Syncs what the segment's writes have handed to the file so far; a failure makes the store read-only. */
    private final class Writeback implements Runnable {
        private final LogWriter log;

        Writeback(LogWriter log) {
            this.log = log;
        }

        @Override
        public void run() {
            try {
                log.syncWritten();
            } catch (IOException | RuntimeException e) {
                db.root.fail("WAL writeback sync", e);
            }
        }
    }
}
