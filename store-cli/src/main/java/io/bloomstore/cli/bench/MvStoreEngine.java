package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Path;

import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.type.ByteArrayDataType;

/**
 * H2's MVStore: a copy-on-write B-tree of byte arrays in one file, set up as its documentation
 * advises for an embedded key-value store (docs/benchmarks.md, "The peers", says why for each
 * setting):
 * <ul>
 *   <li>a map typed {@code byte[] → byte[]} ({@link ByteArrayDataType}: keys in unsigned byte
 *       order, as every other engine orders them);</li>
 *   <li>{@code cacheSize}: the block-cache budget, in MiB (its page cache);</li>
 *   <li>{@code autoCommitBufferSize}: the memtable budget — MVStore keeps changes in memory and
 *       writes them as a new chunk when this much has piled up or after its auto-commit delay (1 s);
 *       nothing is synced per write;</li>
 *   <li>{@code compress()} (LZF, its fast codec) when the run compresses, none otherwise;</li>
 *   <li>fillbatch's batches as one put after another: the map has no batch write, and its puts
 *       wait in memory for the next auto-commit all the same.</li>
 * </ul>
 * MVStore has no write-ahead log: a process that dies loses the changes of the last auto-commit
 * interval, where the other engines' unsynced writes have reached the operating system. It has no
 * way to bypass the page cache.
 *
 * <p>Thread safety: as {@link BenchEngine} requires: an {@link MVMap} takes concurrent reads and
 * writes. It keeps the arrays it is given, so {@link #put} hands it copies (the harness reuses
 * its buffers).
 */
public final class MvStoreEngine extends PeerEngine {
    public static final String NAME = "mvstore";
    static final String FILE = "store.mv";

    private MVStore store;
    private MVMap<byte[], byte[]> map;

    @Override
    public void open(Path dir, BenchConfig config) throws IOException {
        if (store != null) {
            throw new IllegalStateException("already open");
        }
        MVStore.Builder builder = new MVStore.Builder()
                .fileName(dir.resolve(FILE).toString())
                .cacheSize((int) Math.max(1, config.blockCacheBytes() >> 20))
                .autoCommitBufferSize((int) Math.max(1, config.memtableBytes() >> 10));
        if (config.compression() == BenchConfig.Compression.LZ4) {
            builder.compress();
        }
        try {
            store = builder.open();
            map = store.openMap("bench", new MVMap.Builder<byte[], byte[]>()
                    .keyType(ByteArrayDataType.INSTANCE).valueType(ByteArrayDataType.INSTANCE));
        } catch (MVStoreException e) {
            close();
            throw new IOException("cannot open MVStore in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        try {
            map.put(key.clone(), value.clone());
        } catch (MVStoreException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) throws IOException {
        try {
            byte[] value = map.get(key);
            if (value == null) {
                return NOT_FOUND;
            }
            copy(value, value.length, valueBuffer);
            return value.length;
        } catch (MVStoreException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    int scan(byte[] from, byte[] toExclusive, int limit, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        try {
            Cursor<byte[], byte[]> cursor = map.cursor(from);
            int read = 0;
            while (read < limit && cursor.hasNext()) {
                byte[] key = cursor.next();
                if (atOrPast(key, key.length, toExclusive)) {
                    break;
                }
                copy(key, key.length, keyBuffer);
                byte[] value = cursor.getValue();
                copy(value, value.length, valueBuffer);
                read++;
            }
            return read;
        } catch (MVStoreException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** Writes what is still in memory as a chunk ({@code commit}), as a flush would. */
    @Override
    public void prepareForReads() throws IOException {
        try {
            store.commit();
        } catch (MVStoreException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        if (store != null) {
            try {
                store.close();
            } catch (MVStoreException e) {
                throw new IOException(e.getMessage(), e);
            } finally {
                store = null;
                map = null;
            }
        }
    }
}
