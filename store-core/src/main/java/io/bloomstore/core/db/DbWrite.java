package io.bloomstore.core.db;

import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogWriter;
import io.bloomstore.core.wal.RecordBuffer;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Future;

/**
 * The write path of an open store: its entry points and the group commit into the WAL and then the
 * memtable. Split as LevelDB and RocksDB split their write paths: the argument checks are
 * {@link WriteChecks}; making room for a group (memtable switching with a new WAL segment,
 * backpressure, the memtable budget's switch, a flush's forced switch) is {@link MemtableSwitcher};
 * the WAL's segments, writeback and seals are {@link DbWal}. Full memtables are handed to
 * {@link DbBackground} for flushing.
 *
 * <p>Thread safety: safe for concurrent use. Writers line up in the {@link WriteQueue}; the
 * group's leader writes the WAL (every batch framed into the log's buffer, then one write call)
 * and inserts into the memtable with the mutex released, and only it touches the current
 * {@link LogWriter} and the encoding buffer (memtable switches and close change the writer under the mutex,
 * when no leader is writing).
 */
final class DbWrite {
    /** A record buffer that grew past this (a huge batch) is not kept for the next group. */
    private static final int MAX_KEPT_RECORD_BYTES = 1 << 20;
    private static final byte[] EMPTY = new byte[0];

    private final DbState db;
    private final DbBackground background;
    /** The store's WAL: its current segment, writeback, seals and final sync. */
    private final DbWal wal;
    /** The leader's encoding buffer, reused group after group (one leader at a time). */
    private RecordBuffer record = new RecordBuffer(4096);
    /** Making room for a group: memtable and WAL-segment switches, backpressure, the budget's switch. */
    private final MemtableSwitcher switcher;
    /** The checks of keys, values, operands and batches before a write queues. */
    private final WriteChecks checks;

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
    /** {@link io.bloomstore.core.StoreOptions#walBufferBytes()}. */
    private final int walBufferBytes;

    DbWrite(DbState db, DbBackground background, LogWriter wal) {
        this.db = db;
        this.background = background;
        this.wal = new DbWal(db, wal);
        this.switcher = new MemtableSwitcher(db, this.wal);
        this.checks = new WriteChecks(db);
        this.walBufferBytes = db.options.walBufferBytes();
    }

    /**
     * A single put ({@code value} non-null) or delete ({@code value} null), checked and committed
     * like a one-operation batch (the same WAL record, the same errors) without building one: the
     * group's leader copies key and value into the WAL's buffer and the memtable's arenas while
     * this thread waits in the queue, so the caller may reuse both arrays when this returns.
     */
    void writeOne(byte[] key, byte[] value, WriteOptions writeOptions) throws IOException {
        checks.checkKey(key);
        db.checkOpen();
        db.checkWritable();
        if (writeOptions == null) {
            throw new IllegalArgumentException("batch and write options must not be null");
        }
        if (value != null) {
            checks.checkValue(value);
        }
        switcher.awaitMemtableRoom();
        db.queue.submit(key, value, writeOptions.sync(), committer);
        db.counters.userBytesWritten().add(key.length + (value == null ? 0 : value.length));
    }

    /** A single merge of {@code operand} into {@code key}, committed like a one-operation batch. */
    void mergeOne(byte[] key, byte[] operand, WriteOptions writeOptions) throws IOException {
        checks.checkKey(key);
        db.checkOpen();
        db.checkWritable();
        if (writeOptions == null || operand == null) {
            throw new IllegalArgumentException("operand and write options must not be null");
        }
        checks.checkOperand(db, key, operand);
        switcher.awaitMemtableRoom();
        db.queue.submitMerge(key, operand, writeOptions.sync(), committer);
        db.counters.userBytesWritten().add(key.length + operand.length);
    }

    void write(WriteBatch batch, WriteOptions writeOptions) throws IOException {
        db.checkOpen();
        db.checkWritable();
        if (batch == null || writeOptions == null) {
            throw new IllegalArgumentException("batch and write options must not be null");
        }
        long userBytes = checks.checkBatch(batch);
        if (batch.count() == 0) {
            return;
        }
        switcher.awaitMemtableRoom();
        db.queue.submit(batch, writeOptions.sync(), committer);
        db.counters.userBytesWritten().add(userBytes);
    }

    /** A range deletion of [{@code from}, {@code to}): a batch of one, so it is one WAL record as any batch. */
    void deleteRange(byte[] from, byte[] to, WriteOptions writeOptions) throws IOException {
        checks.checkKey(from);
        checks.checkKey(to);
        write(new WriteBatch().deleteRange(from, to), writeOptions);
    }

    void checkKey(byte[] key) {
        checks.checkKey(key);
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
        switcher.makeRoomForWrite(false, bytes);
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
                // walBufferBytes 0 (the default): every group reaches the file before it returns.
                log.flushIfAtLeast(walBufferBytes);
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

    /** See {@link MemtableSwitcher#switchForBudget}. */
    boolean switchForBudget() {
        return switcher.switchForBudget();
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

    /** See {@link MemtableSwitcher#flushAtBarrier}. */
    void flushAtBarrier() throws IOException {
        switcher.flushAtBarrier();
    }
}
