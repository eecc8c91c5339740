package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Path;

import com.sleepycat.je.CacheMode;
import com.sleepycat.je.CheckpointConfig;
import com.sleepycat.je.Cursor;
import com.sleepycat.je.CursorConfig;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.DatabaseException;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.Transaction;

/**
 * Berkeley DB Java Edition: a B+tree whose nodes live in an append-only log, set up as its
 * documentation advises for this job (docs/benchmarks.md, "The peers", says why for each setting):
 * <ul>
 *   <li>a transactional environment whose commits are {@link Durability#COMMIT_WRITE_NO_SYNC}:
 *       each put (one auto-committed transaction) reaches the operating system and is not synced
 *       — the durability of the other engines' unsynced writes;</li>
 *   <li>{@code setCacheSize}: the block-cache budget (JE's cache of tree nodes, on the Java heap);
 *       the database's cache mode {@link CacheMode#EVICT_LN}, JE's advice when the records do not
 *       fit in the cache: keep the internal nodes, drop each record after its operation;</li>
 *   <li>reads with {@link LockMode#READ_UNCOMMITTED} (no read lock), as none of the other engines
 *       locks for a read: a reader here can only see a single auto-committed put, never aborted;</li>
 *   <li>JE's statistics capture off ({@code je.stats.collect}): it would write a statistics file
 *       into the store's directory every minute.</li>
 * </ul>
 * JE has no data compression and no way to bypass the page cache.
 *
 * <p>Thread safety: as {@link BenchEngine} requires: JE's environment and database handles are
 * thread-safe. JE copies the arrays it is given.
 */
public final class JeEngine extends PeerEngine {
    public static final String NAME = "je";

    private Environment env;
    private Database db;

    @Override
    public void open(Path dir, BenchConfig config) throws IOException {
        if (env != null) {
            throw new IllegalStateException("already open");
        }
        EnvironmentConfig envConfig = new EnvironmentConfig();
        envConfig.setAllowCreate(true);
        envConfig.setTransactional(true);
        envConfig.setDurability(Durability.COMMIT_WRITE_NO_SYNC);
        envConfig.setCacheSize(config.blockCacheBytes());
        envConfig.setConfigParam(EnvironmentConfig.STATS_COLLECT, "false");
        try {
            env = new Environment(dir.toFile(), envConfig);
            db = env.openDatabase(null, "bench", new DatabaseConfig().setAllowCreate(true).setTransactional(true)
                    .setCacheMode(CacheMode.EVICT_LN));
        } catch (DatabaseException e) {
            close();
            throw new IOException("cannot open Berkeley DB JE in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        try {
            db.put(null, new DatabaseEntry(key), new DatabaseEntry(value));
        } catch (DatabaseException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** One transaction for the whole batch, committed with the environment's durability. */
    @Override
    public void putBatch(byte[][] keys, byte[][] values, int count) throws IOException {
        Transaction txn = null;
        try {
            txn = env.beginTransaction(null, null);
            for (int i = 0; i < count; i++) {
                db.put(txn, new DatabaseEntry(keys[i]), new DatabaseEntry(values[i]));
            }
            txn.commit();
            txn = null;
        } catch (DatabaseException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            if (txn != null) {
                txn.abort();
            }
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) throws IOException {
        DatabaseEntry value = new DatabaseEntry();
        try {
            if (db.get(null, new DatabaseEntry(key), value, LockMode.READ_UNCOMMITTED) != OperationStatus.SUCCESS) {
                return NOT_FOUND;
            }
        } catch (DatabaseException e) {
            throw new IOException(e.getMessage(), e);
        }
        copy(value.getData(), value.getSize(), valueBuffer);
        return value.getSize();
    }

    @Override
    int scan(byte[] from, byte[] toExclusive, int limit, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        DatabaseEntry key = new DatabaseEntry(from.clone());
        DatabaseEntry value = new DatabaseEntry();
        int read = 0;
        try (Cursor cursor = db.openCursor(null, CursorConfig.READ_UNCOMMITTED)) {
            OperationStatus status = limit > 0 ? cursor.getSearchKeyRange(key, value, null) : OperationStatus.NOTFOUND;
            while (status == OperationStatus.SUCCESS) {
                if (atOrPast(key.getData(), key.getSize(), toExclusive)) {
                    break;
                }
                copy(key.getData(), key.getSize(), keyBuffer);
                copy(value.getData(), value.getSize(), valueBuffer);
                if (++read >= limit) {
                    break;
                }
                status = cursor.getNext(key, value, null);
            }
        } catch (DatabaseException e) {
            throw new IOException(e.getMessage(), e);
        }
        return read;
    }

    /** A forced checkpoint: the tree's dirty nodes written, so a reopen need not replay the fill's log. */
    @Override
    public void prepareForReads() throws IOException {
        try {
            env.checkpoint(new CheckpointConfig().setForce(true));
        } catch (DatabaseException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (db != null) {
                db.close();
            }
            if (env != null) {
                env.close();
            }
        } catch (DatabaseException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            db = null;
            env = null;
        }
    }
}
