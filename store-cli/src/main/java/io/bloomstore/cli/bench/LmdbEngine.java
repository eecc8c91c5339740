package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava (which bundles the native library): one B+tree in a memory-mapped file,
 * set up as LMDB's documentation advises for this job (docs/benchmarks.md, "The peers", says why
 * for each setting):
 * <ul>
 *   <li>{@code MDB_NOSYNC}: a commit writes its pages to the operating system and does not flush
 *       them to the device — the durability of the other engines' unsynced writes;</li>
 *   <li>{@code MDB_NOTLS}: reader slots belong to the transaction, not the thread, as LMDB
 *       advises when threads come from a pool; each worker thread keeps one read transaction and
 *       resets and renews it around every read ({@code mdb_txn_reset}/{@code mdb_txn_renew}, the
 *       documented way to avoid a transaction's set-up per read);</li>
 *   <li>one write transaction per put, committed at once (as db_bench writes: one put per
 *       operation);</li>
 *   <li>a map size of {@value #MAP_SIZE_FACTOR}× the keys' and values' bytes, at least 1 GiB: the
 *       ceiling of the file's growth, reserved address space only (the file grows as pages are
 *       used).</li>
 * </ul>
 * LMDB has no cache of its own (the operating system's page cache serves the map), no compression
 * and no way to bypass the page cache: the block-cache, compression and direct-reads settings do
 * not apply to it.
 *
 * <p>Thread safety: as {@link BenchEngine} requires: LMDB serialises write transactions; each
 * thread reads through its own read transaction and direct buffers.
 */
public final class LmdbEngine extends PeerEngine {
    public static final String NAME = "lmdb";
    static final int MAP_SIZE_FACTOR = 16;
    private static final long MIN_MAP_SIZE = 1L << 30;

    private Env<ByteBuffer> env;
    private Dbi<ByteBuffer> db;
    private int maxKeySize;
    private final List<Txn<ByteBuffer>> readTxns = new ArrayList<>();
    private ThreadLocal<PerThread> perThread;

    /** A thread's read transaction (reset between reads) and direct buffers for keys and values. */
    private final class PerThread {
        Txn<ByteBuffer> readTxn;
        final ByteBuffer key = ByteBuffer.allocateDirect(maxKeySize);
        final ByteBuffer bound = ByteBuffer.allocateDirect(maxKeySize);
        ByteBuffer value = ByteBuffer.allocateDirect(1024);

        ByteBuffer key(byte[] k) {
            key.clear();
            key.put(k).flip();
            return key;
        }

        ByteBuffer value(byte[] v) {
            if (value.capacity() < v.length) {
                value = ByteBuffer.allocateDirect(Math.max(v.length, 2 * value.capacity()));
            }
            value.clear();
            value.put(v).flip();
            return value;
        }

        /** The thread's read transaction, renewed for one read; {@link #done} resets it. */
        Txn<ByteBuffer> read() {
            if (readTxn == null) {
                readTxn = env.txnRead();
                synchronized (readTxns) {
                    readTxns.add(readTxn);
                }
            } else {
                readTxn.renew();
            }
            return readTxn;
        }

        void done() {
            readTxn.reset();
        }
    }

    /** The map size for {@code config}: {@value #MAP_SIZE_FACTOR}× the keys' and values' bytes, at least 1 GiB. */
    static long mapSize(BenchConfig config) {
        long user = (long) config.keys() * (config.keySize() + config.valueSize());
        return Math.max(MIN_MAP_SIZE, MAP_SIZE_FACTOR * user);
    }

    @Override
    public void open(Path dir, BenchConfig config) throws IOException {
        if (env != null) {
            throw new IllegalStateException("already open");
        }
        try {
            env = Env.create().setMapSize(mapSize(config)).setMaxDbs(1)
                    .open(dir.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOTLS);
            db = env.openDbi("bench", DbiFlags.MDB_CREATE);
        } catch (LmdbException e) {
            closeQuietly();
            throw new IOException("cannot open LMDB in " + dir + ": " + e.getMessage(), e);
        }
        maxKeySize = env.getMaxKeySize();
        perThread = ThreadLocal.withInitial(PerThread::new);
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        if (key.length > maxKeySize) {
            throw new IllegalArgumentException("LMDB keys are at most " + maxKeySize + " bytes: " + key.length);
        }
        PerThread t = perThread.get();
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            db.put(txn, t.key(key), t.value(value));
            txn.commit();
        } catch (LmdbException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** One write transaction for the whole batch: LMDB's advice for bulk writes. */
    @Override
    public void putBatch(byte[][] keys, byte[][] values, int count) throws IOException {
        PerThread t = perThread.get();
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            for (int i = 0; i < count; i++) {
                if (keys[i].length > maxKeySize) {
                    throw new IllegalArgumentException("LMDB keys are at most " + maxKeySize + " bytes: " + keys[i].length);
                }
                db.put(txn, t.key(keys[i]), t.value(values[i]));
            }
            txn.commit();
        } catch (LmdbException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) throws IOException {
        PerThread t = perThread.get();
        Txn<ByteBuffer> txn = t.read();
        try {
            ByteBuffer value = db.get(txn, t.key(key));
            if (value == null) {
                return NOT_FOUND;
            }
            int length = value.remaining();
            value.get(valueBuffer, 0, Math.min(length, valueBuffer.length));
            return length;
        } catch (LmdbException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            t.done();
        }
    }

    @Override
    int scan(byte[] from, byte[] toExclusive, int limit, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        PerThread t = perThread.get();
        Txn<ByteBuffer> txn = t.read();
        try (Cursor<ByteBuffer> cursor = db.openCursor(txn)) {
            int read = 0;
            if (limit <= 0 || !cursor.get(t.key(from), GetOp.MDB_SET_RANGE)) {
                return 0;
            }
            do {
                ByteBuffer k = cursor.key();
                if (toExclusive != null && compareUnsigned(k, toExclusive) >= 0) {
                    break;
                }
                k.get(keyBuffer, 0, Math.min(k.remaining(), keyBuffer.length));
                ByteBuffer v = cursor.val();
                v.get(valueBuffer, 0, Math.min(v.remaining(), valueBuffer.length));
                read++;
            } while (read < limit && cursor.next());
            return read;
        } catch (LmdbException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            t.done();
        }
    }

    /** Unsigned comparison of {@code a}'s remaining bytes (left in place) with {@code b}. */
    static int compareUnsigned(ByteBuffer a, byte[] b) {
        int n = Math.min(a.remaining(), b.length);
        int p = a.position();
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(a.get(p + i) & 0xff, b[i] & 0xff);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.remaining(), b.length);
    }

    /** A B+tree has nothing to move or compact before reads: every put is in the tree when committed. */
    @Override
    public void prepareForReads() {
    }

    @Override
    public void close() throws IOException {
        closeQuietly();
    }

    private void closeQuietly() {
        synchronized (readTxns) {
            for (Txn<ByteBuffer> txn : readTxns) {
                txn.close();
            }
            readTxns.clear();
        }
        if (db != null) {
            db.close();
            db = null;
        }
        if (env != null) {
            env.close();
            env = null;
        }
        perThread = null;
    }
}
