package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Path;

import jetbrains.exodus.ArrayByteIterable;
import jetbrains.exodus.ByteIterable;
import jetbrains.exodus.ExodusException;
import jetbrains.exodus.env.Cursor;
import jetbrains.exodus.env.Environment;
import jetbrains.exodus.env.EnvironmentConfig;
import jetbrains.exodus.env.Environments;
import jetbrains.exodus.env.Store;
import jetbrains.exodus.env.StoreConfig;
import jetbrains.exodus.env.Transaction;

/**
 * JetBrains Xodus: an append-only log holding immutable trees, set up as its documentation
 * advises for this job (docs/benchmarks.md, "The peers", says why for each setting):
 * <ul>
 *   <li>a store {@link StoreConfig#WITHOUT_DUPLICATES_WITH_PREFIXING} (a Patricia trie over the
 *       keys, which Xodus offers for keys sharing prefixes, as the benchmark's big-endian numbers
 *       do);</li>
 *   <li>{@code memoryUsage}: the block-cache budget, for a log cache of this environment's own
 *       ({@code logCacheShared=false}: the shared cache is one per process, sized by the first
 *       environment that opens it);</li>
 *   <li>durable writes off (its default): a commit writes the log to the operating system and
 *       does not sync — the durability of the other engines' unsynced writes;</li>
 *   <li>one transaction per put, through {@code executeInTransaction}, which retries a commit that
 *       met a concurrent one; a read-only transaction per read.</li>
 * </ul>
 * Xodus has no data compression and no way to bypass the page cache.
 *
 * <p>Thread safety: as {@link BenchEngine} requires: Xodus's environment and stores are
 * thread-safe. A transaction's commit has written what it was given before {@link #put} returns.
 */
public final class XodusEngine extends PeerEngine {
    public static final String NAME = "xodus";

    private Environment env;
    private Store store;

    @Override
    public void open(Path dir, BenchConfig config) throws IOException {
        if (env != null) {
            throw new IllegalStateException("already open");
        }
        EnvironmentConfig envConfig = new EnvironmentConfig()
                .setLogCacheShared(false)
                .setMemoryUsage(config.blockCacheBytes())
                .setLogDurableWrite(false);
        try {
            env = Environments.newInstance(dir.toFile(), envConfig);
            Environment e = env;
            store = e.computeInTransaction(txn ->
                    e.openStore("bench", StoreConfig.WITHOUT_DUPLICATES_WITH_PREFIXING, txn));
        } catch (ExodusException e) {
            close();
            throw new IOException("cannot open Xodus in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        ByteIterable k = new ArrayByteIterable(key);
        ByteIterable v = new ArrayByteIterable(value);
        try {
            env.executeInTransaction(txn -> store.put(txn, k, v));
        } catch (ExodusException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** One transaction for the whole batch (retried whole if its commit meets a concurrent one). */
    @Override
    public void putBatch(byte[][] keys, byte[][] values, int count) throws IOException {
        try {
            env.executeInTransaction(txn -> {
                for (int i = 0; i < count; i++) {
                    store.put(txn, new ArrayByteIterable(keys[i]), new ArrayByteIterable(values[i]));
                }
            });
        } catch (ExodusException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) throws IOException {
        Transaction txn = env.beginReadonlyTransaction();
        try {
            ByteIterable value = store.get(txn, new ArrayByteIterable(key));
            if (value == null) {
                return NOT_FOUND;
            }
            copy(value.getBytesUnsafe(), value.getLength(), valueBuffer);
            return value.getLength();
        } catch (ExodusException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            txn.abort();
        }
    }

    @Override
    int scan(byte[] from, byte[] toExclusive, int limit, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        Transaction txn = env.beginReadonlyTransaction();
        try (Cursor cursor = store.openCursor(txn)) {
            int read = 0;
            if (limit <= 0 || cursor.getSearchKeyRange(new ArrayByteIterable(from)) == null) {
                return 0;
            }
            do {
                ByteIterable key = cursor.getKey();
                byte[] keyBytes = key.getBytesUnsafe();
                if (atOrPast(keyBytes, key.getLength(), toExclusive)) {
                    break;
                }
                copy(keyBytes, key.getLength(), keyBuffer);
                ByteIterable value = cursor.getValue();
                copy(value.getBytesUnsafe(), value.getLength(), valueBuffer);
                read++;
            } while (read < limit && cursor.getNext());
            return read;
        } catch (ExodusException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            txn.abort();
        }
    }

    /** Every committed put is in the log's trees; the log's cleaner runs in the background as it would in use. */
    @Override
    public void prepareForReads() {
    }

    @Override
    public void close() throws IOException {
        try {
            if (env != null) {
                env.close();
            }
        } catch (ExodusException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            env = null;
            store = null;
        }
    }
}
