package io.bloomstore.core.db;

import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import io.bloomstore.core.wal.RecordBuffer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of an open store: argument checks, group commit into the WAL and then the
 * memtable, memtable switching with a new WAL segment, and backpressure. Full memtables are handed
 * to {@link DbBackground} for flushing.
 *
 * <p>Thread safety: safe for concurrent use. Writers line up in the {@link WriteQueue}; the
 * group's leader writes the WAL (every batch framed into the log's buffer, then one write call)
 * and inserts into the memtable with the mutex released, and only it touches the current
 * {@link LogWriter} and the encoding buffer (memtable switches and close change the writer under the mutex,
 * when no leader is writing).
 */
final class DbWrite {
    /** Immutable memtables waiting for the flush thread before writers must wait. */
    private static final int MAX_IMMUTABLES = 2;
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DbWrite.class);
    }

    /** A record buffer that grew past this (a huge batch) is not kept for the next group. */
    private static final int MAX_KEPT_RECORD_BYTES = 1 << 20;
    private static final byte[] EMPTY = new byte[0];

    private final DbState db;
    private final DbBackground background;
    /** The store's WAL: its current segment, writeback, seals and final sync. */
    private final DbWal wal;
    /** The leader's encoding buffer, reused group after group (one leader at a time). */
    private RecordBuffer record = new RecordBuffer(4096);
    /** The slowdown while level 0 is at its trigger; under the mutex. */
    private final WriteSlowdown slowdown;


    /** {@link #commitGroup} as the queue's committer, made once rather than per write. */
    private final WriteQueue.Committer committer = new WriteQueue.Committer() {
        @Override
        public void commit(List<WriteQueue.Writer> group) throws IOException {
            commitGroup(group);
        }
    };

    /**
     * Each writer's first sequence number in the group being committed: reused, as leaders commit
     * one group at a time (a new array per put was a sixth of a writing process's garbage).
     */
    private long[] groupStarts = new long[16];

    DbWrite(DbState db, DbBackground background, LogWriter wal) {
        this.db = db;
        this.background = background;
        this.wal = new DbWal(db, wal);
        this.slowdown = new WriteSlowdown(db);
    }

    /**
     * A single put ({@code value} non-null) or delete ({@code value} null), checked and committed
     * like a one-operation batch (the same WAL record, the same errors) without building one: the
     * group's leader copies key and value into the WAL's buffer and the memtable's arenas while
     * this thread waits in the queue, so the caller may reuse both arrays when this returns.
     */
    void writeOne(byte[] key, byte[] value, WriteOptions writeOptions) throws IOException {
        checkKey(key);
        db.checkOpen();
        db.checkWritable();
        if (writeOptions == null) {
            throw new IllegalArgumentException("batch and write options must not be null");
        }
        if (value != null) {
            checkValue(value);
        }
        awaitMemtableRoom();
        db.queue.submit(key, value, writeOptions.sync(), committer);
        db.counters.userBytesWritten().add(key.length + (value == null ? 0 : value.length));
    }

    /** A single merge of {@code operand} into {@code key}, committed like a one-operation batch. */
    void mergeOne(byte[] key, byte[] operand, WriteOptions writeOptions) throws IOException {
        checkKey(key);
        db.checkOpen();
        db.checkWritable();
        if (writeOptions == null || operand == null) {
            throw new IllegalArgumentException("operand and write options must not be null");
        }
        checkOperand(db, key, operand);
        awaitMemtableRoom();
        db.queue.submitMerge(key, operand, writeOptions.sync(), committer);
        db.counters.userBytesWritten().add(key.length + operand.length);
    }

    private void checkOperand(DbState keyspace, byte[] key, byte[] operand) {
        checkValue(operand);
        MergeOperator op = keyspace.rules.mergeOperator();
        if (op == null) {
            throw new IllegalStateException(keyspace == db ? "merge needs a merge operator: open the store with "
                    + "StoreOptions.builder().mergeOperator(...) (e.g. MergeOperators.int64Add())"
                    : "merge in keyspace " + keyspace.keyspaceName + " needs a merge operator: give it with "
                    + "KeyspaceOptions.builder().mergeOperator(...)");
        }
        op.checkOperand(key, operand);
    }

    void write(WriteBatch batch, WriteOptions writeOptions) throws IOException {
        db.checkOpen();
        db.checkWritable();
        if (batch == null || writeOptions == null) {
            throw new IllegalArgumentException("batch and write options must not be null");
        }
        long[] userBytes = {0};
        batch.forEach(new WriteBatch.Handler() {
            private DbState keyspace = db;

            @Override
            public void keyspace(io.bloomstore.core.Keyspace k) {
                keyspace = k == null ? db : KeyspaceHandle.stateIn(db, k);
            }

            @Override
            public void put(byte[] key, byte[] value) {
                checkKey(key);
                userBytes[0] += key.length + value.length;
                checkValue(value);
            }

            @Override
            public void delete(byte[] key) {
                checkKey(key);
                userBytes[0] += key.length;
            }

            @Override
            public void merge(byte[] key, byte[] operand) {
                checkKey(key);
                userBytes[0] += key.length + operand.length;
                checkOperand(keyspace, key, operand);
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) {
                checkKey(from);
                checkKey(to);
                userBytes[0] += from.length + to.length;
            }
        });
        if (batch.count() == 0) {
            return;
        }
        awaitMemtableRoom();
        db.queue.submit(batch, writeOptions.sync(), committer);
        db.counters.userBytesWritten().add(userBytes[0]);
    }

    /** A range deletion of [{@code from}, {@code to}): a batch of one, so it is one WAL record as any batch. */
    void deleteRange(byte[] from, byte[] to, WriteOptions writeOptions) throws IOException {
        checkKey(from);
        checkKey(to);
        write(new WriteBatch().deleteRange(from, to), writeOptions);
    }

    void checkKey(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("key must not be null or empty");
        }
        if (key.length > db.options.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is over the maximum of "
                    + db.options.maxKeyBytes() + " bytes (StoreOptions.maxKeyBytes)");
        }
    }

    private void checkValue(byte[] value) {
        if (value.length > db.options.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the maximum of "
                    + db.options.maxValueBytes() + " bytes (StoreOptions.maxValueBytes)");
        }
    }

    /**
     * Called by a group's leader with the mutex held: makes room, assigns sequence numbers, then
     * (mutex released) writes the group to the WAL (every writer's record into the log's buffer,
     * one write call, the sync if any writer asked), inserts into the memtable, operation
     * {@code j} of writer {@code i} at {@code starts[i] + j}, and finally publishes the new last
     * sequence.
     *
     * <p>One method on purpose: it is longer than the 325 bytecodes C2 inlines into a hot caller,
     * so a fresh JVM compiles the WAL and memtable work once, here, rather than once more inside
     * each layer above it (the put entry points, the write queue) and once in each helper. With
     * the WAL write and the insert as methods of their own, the one C2 thread of a 2-core machine
     * spent over a second compiling the same code three to five times during the first puts.
     */
    private void commitGroup(List<WriteQueue.Writer> group) throws IOException {
        int n = group.size();
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += group.get(i).approximateBytes();
        }
        makeRoomForWrite(false, bytes);
        MemTable mem = db.view.mem();
        LogWriter log = wal.current();
        long first = db.root.lastSequence + 1;
        long seq = first;
        // A store with a TTL stamps the group's puts with one commit time.
        boolean keyspaces = db.root.keyspaces.length > 1;
        long now = db.rules.timed() || keyspaces ? db.rules.now() : -1;
        long stamp = db.rules.timed() ? now : -1;
        boolean sync = false;
        boolean rangeDeletions = false;
        if (groupStarts.length < n) {
            groupStarts = new long[Math.max(n, 2 * groupStarts.length)];
        }
        long[] starts = groupStarts;
        for (int i = 0; i < n; i++) {
            starts[i] = seq;
            seq += group.get(i).count();
            sync |= group.get(i).sync();
            rangeDeletions |= group.get(i).batch() != null && group.get(i).batch().hasRangeDeletion();
        }
        // The WAL write and the memtable insert run with the mutex released (the next writers queue
        // meanwhile); written out rather than as a lambda, so a put allocates no closure.
        db.queue.mutex().unlock();
        try {
            try {
                RecordBuffer rec = record;
                wal.maybeRecordSeal(log, sync, starts[0], rec);
                for (int i = 0; i < n; i++) {
                    WriteQueue.Writer w = group.get(i);
                    rec.clear();
                    if (w.batch() != null) {
                        BatchCodec.encode(w.batch(), starts[i], stamp, keyspaces ? timedKeyspaces : null, now, rec);
                    } else {
                        BatchCodec.encodeOne(w.key(), typeOf(w), w.value(), starts[i], stamp, rec);
                    }
                    log.append(rec.array(), 0, rec.size());
                }
                if (rec.capacity() > MAX_KEPT_RECORD_BYTES) {
                    record = new RecordBuffer(4096);
                }
                log.flush();
                if (sync) {
                    log.sync();
                } else {
                    wal.maybeStartWriteback(log);
                }
            } catch (IOException | RuntimeException | Error e) {
                // The WAL's state is unknown now: refuse all further writes rather than risk a hole.
                db.root.fail("WAL write", e);
                throw e;
            }
            try {
                for (int i = 0; i < n; i++) {
                    WriteQueue.Writer w = group.get(i);
                    if (w.batch() != null) {
                        insertBatch(w.batch(), starts[i], stamp, now, mem, db.root);
                    } else if (w.value() == null) {
                        mem.add(w.key(), starts[i], ValueType.DELETION, EMPTY);
                    } else if (w.merge()) {
                        mem.add(w.key(), starts[i], ValueType.MERGE, w.value());
                    } else if (stamp >= 0) {
                        mem.add(w.key(), starts[i], ValueType.TIMED_VALUE, EntryRules.stamp(w.value(), stamp));
                    } else {
                        mem.add(w.key(), starts[i], ValueType.VALUE, w.value());
                    }
                }
            } catch (RuntimeException | Error e) {
                // The WAL holds the group but the memtable only part of it, and the sequence numbers
                // are not published: writing on would reuse them. Recovery replays the WAL whole.
                db.root.fail("memtable insert", e);
                throw e;
            }
        } finally {
            db.queue.mutex().lock();
        }
        if (rangeDeletions) {
            // Readers see the new tombstones through the view, before the sequence that makes them visible.
            for (DbState k : db.root.keyspaces) {
                k.view = k.view.withMemtableRangeDeletions();
            }
        }
        db.root.lastSequence = seq - 1;
        db.chargeMemtables();
    }

    /** Whether a keyspace stamps its puts with their commit time (it has a TTL, and is still there). */
    private final java.util.function.IntPredicate timedKeyspaces = new TimedKeyspaces();

    /** {@link #timedKeyspaces}: a class, not a lambda (none is spun on a first write). */
    private final class TimedKeyspaces implements java.util.function.IntPredicate {
        @Override
        public boolean test(int id) {
            DbState k = db.root.keyspace(id);
            return k != null && k.rules.timed();
        }
    }

    /** The type of a single write's entry. */
    private static ValueType typeOf(WriteQueue.Writer w) {
        return w.value() == null ? ValueType.DELETION : w.merge() ? ValueType.MERGE : ValueType.VALUE;
    }

    /**
     * Inserts a committed batch into the memtable, its operation {@code j} at {@code first + j};
     * with {@code stamp} ≥ 0 its puts are timed values written at {@code stamp}.
     */
    private static void insertBatch(WriteBatch batch, long first, long stamp, long now, MemTable defaultMem,
                                    DbState root) {
        long[] next = {first};
        batch.forEach(new WriteBatch.Handler() {
            /** The memtable of the operations' keyspace; null for a keyspace dropped meanwhile (they are skipped, and so does recovery). */
            private MemTable mem = defaultMem;
            private long keyspaceStamp = stamp;

            @Override
            public void keyspace(io.bloomstore.core.Keyspace keyspace) {
                if (keyspace == null) {
                    mem = defaultMem;
                    keyspaceStamp = stamp;
                    return;
                }
                DbState k = root.keyspace(keyspace.id());
                mem = k == null ? null : k.view.mem();
                keyspaceStamp = k != null && k.rules.timed() ? now : -1;
            }

            @Override
            public void put(byte[] key, byte[] value) {
                long seq = next[0]++;
                if (mem == null) {
                    return;
                }
                if (keyspaceStamp >= 0) {
                    mem.add(key, seq, ValueType.TIMED_VALUE, EntryRules.stamp(value, keyspaceStamp));
                } else {
                    mem.add(key, seq, ValueType.VALUE, value);
                }
            }

            @Override
            public void merge(byte[] key, byte[] operand) {
                long seq = next[0]++;
                if (mem != null) {
                    mem.add(key, seq, ValueType.MERGE, operand);
                }
            }

            @Override
            public void delete(byte[] key) {
                long seq = next[0]++;
                if (mem != null) {
                    mem.add(key, seq, ValueType.DELETION, EMPTY);
                }
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) {
                long seq = next[0]++;
                if (mem != null) {
                    mem.add(from, seq, ValueType.RANGE_DELETION, to);
                }
            }
        });
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
    private void makeRoomForWrite(boolean force, long groupBytes) throws IOException {
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
                    db.queue.unlocked(() -> pause(wait));
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
     * flushing. The finished segment is sealed on a sync thread ({@link #seal}), not here: its
     * sync waited for the running writeback and then synced up to a megabyte, 12–27 ms of a
     * writer's time at every switch (JFR, 1 KiB updates), as RocksDB leaves closed logs to be
     * synced later. What the sync before the switch guaranteed still holds, because nothing syncs
     * the new segment before the seal is done and recorded in it ({@link #recordSeal}).
     */
    private void switchMemTables() throws IOException {
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
    private void awaitMemtableRoom() throws IOException {
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

    /**
     * Sleeps {@code nanos}, to the timer's precision, unless the thread is interrupted (its flag
     * is left set). Not {@code Thread.sleep(millis, nanos)}: up to Java 20 that rounds any
     * nanoseconds up to a whole millisecond, so the slowdown's delays of just over a millisecond
     * slept two, held writes to about half of {@code delayedWriteRate}, and set the p99.9 of
     * updates (2.2–4.1 ms against RocksDB's 1.2 ms with 1 KiB values).
     */
    static void pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && !Thread.currentThread().isInterrupted(); left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
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

    /** See {@link DbWal#syncAfter}. */
    void syncAfter(Future<?> recovered) {
        wal.syncAfter(recovered);
    }

    /** See {@link DbWal#startFinalSync}. */
    Future<?> startFinalSync() {
        return wal.startFinalSync(db.root.lastSequence + 1);
    }

    /** See {@link DbWal#close}. */
    void closeWal(Future<?> finalSync) throws IOException {
        wal.close(finalSync);
    }

    /** Switches the memtable (if it holds anything) and waits until every immutable memtable is flushed. */
    void flush() throws IOException {
        db.checkOpen();
        db.checkWritable();
        db.queue.submitBarrier(group -> flushAtBarrier());
        // Background flushes save the counters at most once a second; a flush the caller asked for
        // saves them, so a flush that returned has saved them: in place and without an fsync, as
        // close does (statistics; a temporary file, its fsync and a rename were two of the nine
        // file-system round trips of a small store's flush, 1,000 stores flushed one after another).
        db.cumulative.saveWithoutSyncOrWarn();
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
