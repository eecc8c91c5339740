package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.Compression;

/**
 * BloomStore itself, as the benchmark drives it: {@code bloomstore} with a filter of the
 * configured kind and bits per key on every table, or {@code bloomstore-nofilter} with tables
 * written without filters, so every table a lookup consults is read. Memtable size, block cache
 * and compression come from the {@link BenchConfig}, as for RocksDB. With a {@link ScanConfig}
 * prefix structure, tables also get prefix filters (a fixed extractor of the prefix length) and,
 * when asked for, range filters; the nofilter engine gets neither.
 *
 * <p>Counters come from {@link Store#stats()}:
 * <pre>
 *   gets                 gets
 *   tablesConsulted      tableLookups (= filterNegatives + filterPositives with filters)
 *   dataBlockReads       dataBlockReads
 *   bytesRead            bytesRead (data blocks only)
 *   filterNegatives      filterNegatives
 *   filterPositives      filterPositives
 *   filterTruePositives  filterTruePositives
 *   blockCacheHits       blockCacheHits
 *   filterFileReads      filterFileReads (whole-sidecar checksum checks, once per table)
 *   configuredFpr        configuredFpr (1 without filters)
 * </pre>
 *
 * <p>Allocation: {@link Store#get} returns a fresh array, which is copied into the harness's
 * buffer; RocksDB writes into that buffer directly. The copy is part of what is measured.
 *
 * <p>Thread safety: as {@link BenchEngine} requires; the store is thread-safe.
 */
public final class BloomStoreEngine implements BenchEngine {
    public static final String NAME = "bloomstore";
    public static final String NAME_NO_FILTER = "bloomstore-nofilter";

    private final boolean filters;
    private ScanConfig scans = ScanConfig.none();
    private Store store;

    /** An engine whose tables have filters ({@code filters}) or none. */
    public BloomStoreEngine(boolean filters) {
        this.filters = filters;
    }

    /** The store options a run with {@code config} uses. */
    StoreOptions options(BenchConfig config) {
        return StoreOptions.builder()
                .memtableBytes(config.memtableBytes())
                .blockCacheBytes(config.blockCacheBytes())
                .compression(config.compression() == BenchConfig.Compression.LZ4 ? Compression.LZ4 : Compression.NONE)
                .filterKind(filters ? config.filterKind() : null)
                .bitsPerKey(config.bitsPerKey())
                .directReads(config.directReads())
                .walBufferBytes(config.walBufferBytes())
                .prefixExtractor(scans.prefixExtractor() ? PrefixExtractor.fixed(scans.prefixBytes()) : null)
                .rangeFilter(scans.rangeFilterBits() > 0 ? RangeFilterOptions.of(scans.rangeFilterBits()) : null)
                .build();
    }

    @Override
    public void configureScans(ScanConfig scanConfig) {
        this.scans = scanConfig;
    }

    @Override
    public int prefixScan(byte[] prefix, byte[] keyBuffer, byte[] valueBuffer) {
        try (StoreIterator it = store.prefixIterator(prefix)) {
            return drain(it, keyBuffer, valueBuffer);
        }
    }

    @Override
    public int rangeScan(byte[] from, byte[] to, byte[] keyBuffer, byte[] valueBuffer) {
        try (StoreIterator it = store.iterator(from, to)) {
            return drain(it, keyBuffer, valueBuffer);
        }
    }

    private static int drain(StoreIterator it, byte[] keyBuffer, byte[] valueBuffer) {
        int read = 0;
        while (it.hasNext()) {
            KeyValue kv = it.next();
            System.arraycopy(kv.key(), 0, keyBuffer, 0, Math.min(kv.key().length, keyBuffer.length));
            System.arraycopy(kv.value(), 0, valueBuffer, 0, Math.min(kv.value().length, valueBuffer.length));
            read++;
        }
        return read;
    }

    @Override
    public void open(Path dir, BenchConfig config) throws IOException {
        if (store != null) {
            throw new IllegalStateException("already open");
        }
        store = Store.open(dir, options(config));
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        // The harness reuses its buffers, which the store allows: it copies what it keeps
        // (BufferOwnershipTest), as a user's put would rely on. Copying here too cost every put
        // a second copy of its value, 1 KiB at --value-size 1024.
        store.put(key, value);
    }

    /** One {@link WriteBatch}: the store copies what it keeps, so the reused arrays go in as they are. */
    @Override
    public void putBatch(byte[][] keys, byte[][] values, int count) throws IOException {
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < count; i++) {
            batch.put(keys[i], values[i]);
        }
        store.write(batch, WriteOptions.DEFAULT);
    }

    @Override
    public void delete(byte[] key) throws IOException {
        store.delete(key);
    }

    @Override
    public void deleteRange(byte[] from, byte[] to) throws IOException {
        store.deleteRange(from, to);
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) throws IOException {
        byte[] value = store.get(key);
        if (value == null) {
            return NOT_FOUND;
        }
        System.arraycopy(value, 0, valueBuffer, 0, Math.min(value.length, valueBuffer.length));
        return value.length;
    }

    @Override
    public int seekScan(byte[] startKey, int count, byte[] keyBuffer, byte[] valueBuffer) {
        int read = 0;
        try (StoreIterator it = store.iterator(startKey, null)) {
            while (read < count && it.hasNext()) {
                KeyValue kv = it.next();
                System.arraycopy(kv.key(), 0, keyBuffer, 0, Math.min(kv.key().length, keyBuffer.length));
                System.arraycopy(kv.value(), 0, valueBuffer, 0, Math.min(kv.value().length, valueBuffer.length));
                read++;
            }
        }
        return read;
    }

    /**
     * Flushes the memtable, lets background compaction settle and, when level 0 still holds tables
     * or more than one level does, compacts the store into one level, as the RocksDB engine does.
     */
    @Override
    public void prepareForReads() throws IOException {
        store.flush();
        store.awaitCompactions();
        List<StoreStats.LevelStats> shape = store.stats().levels();
        if (shape.get(0).files() > 0 || shape.stream().filter(l -> l.files() > 0).count() > 1) {
            store.compact();
        }
    }

    @Override
    public EngineCounters counters() {
        if (store == null) {
            return EngineCounters.zero(filters ? 0 : 1);
        }
        StoreStats s = store.stats();
        return new EngineCounters(s.gets(), s.tableLookups(), s.dataBlockReads(), s.bytesRead(),
                s.filterNegatives(), s.filterPositives(), s.filterTruePositives(), s.blockCacheHits(),
                s.filterFileReads(), s.configuredFpr());
    }

    /** Filters are mapped from their sidecars; indexes are decoded on the heap; nothing else is native. */
    @Override
    public EngineMemory memory() {
        if (store == null) {
            return EngineMemory.UNKNOWN;
        }
        StoreStats s = store.stats();
        return new EngineMemory(s.filterBytes(), s.indexHeapBytes(), s.indexOffHeapBytes());
    }

    /** Filter bytes of the live tables (StoreStats.filterBytes) over the entries of the levels' tables. */
    @Override
    public double filterBitsPerKey() {
        if (store == null) {
            return Double.NaN;
        }
        StoreStats s = store.stats();
        long entries = s.levels().stream().mapToLong(StoreStats.LevelStats::entries).sum();
        return entries == 0 ? Double.NaN : 8.0 * s.filterBytes() / entries;
    }

    @Override
    public void close() throws IOException {
        if (store != null) {
            try {
                store.close();
            } finally {
                store = null;
            }
        }
    }
}
