package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import io.bloomstore.core.PrefixExtractor;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.HistogramType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksObject;
import org.rocksdb.Slice;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The baseline: RocksDB through rocksdbjni, configured like BloomStore for the run — a
 * full (whole-key) Bloom filter of the configured bits per key on every table, an LRU data
 * block cache of the configured size, the configured compression and memtable size —
 * and read through preallocated buffers ({@code get(ReadOptions, byte[], byte[])}). With a
 * {@link ScanConfig} prefix structure it gets a fixed-length prefix extractor of the prefix length,
 * so its filters also hold the prefixes (RocksDB's prefix Bloom filter); scans set
 * {@code iterate_upper_bound} and {@code auto_prefix_mode}, under which a seek whose bounds share a
 * prefix checks that prefix's filter first.
 *
 * <p>{@value #NAME_RIBBON} is the same engine with RocksDB's Ribbon filter ({@code NewRibbonFilterPolicy},
 * Standard128Ribbon; Bloom for level-0 flushes, as that policy's default {@code bloom_before_level = 0}).
 * RocksDB's Java API has no class for it, so the table options are given as RocksDB's own options
 * string ({@code filter_policy=ribbonfilter:B}), with an LRU block cache of the same size. RocksDB
 * states a Ribbon filter's size as the Bloom bits per key of equal false-positive rate and says it
 * takes about 30% less memory than that Bloom filter; to spend the configured bits per key rather
 * than 30% fewer, B is the configured bits divided by {@value #RIBBON_SPACE_RATIO} ({@link
 * #ribbonBloomEquivalentBits}). What each engine actually spends is {@link #filterBitsPerKey()}.
 *
 * <p>Counters come from RocksDB's statistics tickers:
 * <pre>
 *   gets                 NUMBER_KEYS_READ
 *   tablesConsulted      BLOOM_FILTER_USEFUL + BLOOM_FILTER_FULL_POSITIVE (tables whose filter was asked)
 *   dataBlockReads       BLOCK_CACHE_DATA_MISS
 *   bytesRead            LAST_LEVEL_READ_BYTES + NON_LAST_LEVEL_READ_BYTES (table file bytes, compaction included)
 *   filterNegatives      BLOOM_FILTER_USEFUL
 *   filterPositives      BLOOM_FILTER_FULL_POSITIVE
 *   filterTruePositives  BLOOM_FILTER_FULL_TRUE_POSITIVE
 *   blockCacheHits       BLOCK_CACHE_DATA_HIT
 *   filterFileReads      BLOCK_CACHE_FILTER_MISS (filter blocks read into the block cache; filters a
 *                        table reader loads at open and keeps, RocksDB's default, are not counted)
 *   configuredFpr        theory for a Bloom filter blocked in 512-bit cache lines (RocksDB's FastLocalBloom)
 * </pre>
 *
 * <p>Statistics cost: RocksDB's Java API offers no statistics level below
 * {@code EXCEPT_DETAILED_TIMERS}, so the statistics object is created with every histogram type
 * ignored ({@link #STATS_LEVEL}): tickers, the only figures read here, are kept, and the
 * histograms and the timers that feed them are not taken — the cost of {@code StatsLevel}
 * {@code EXCEPT_HISTOGRAM_OR_TIMERS}, below the {@code EXCEPT_TIMERS} the issue asks for.
 *
 * <p>Thread safety: as {@link BenchEngine} requires; RocksDB's reads and writes are thread-safe.
 */
public final class RocksDbEngine implements BenchEngine {
    public static final String NAME = "rocksdb";
    /** RocksDB with its Ribbon filter at the configured bits per key. */
    public static final String NAME_RIBBON = "rocksdb-ribbon";
    /** A Ribbon filter's bits over those of the Bloom filter of the same false-positive rate (RocksDB's figure). */
    static final double RIBBON_SPACE_RATIO = 0.7;
    /** How RocksDB's statistics are kept, as the report states it. */
    public static final String STATS_LEVEL = "tickers only: EXCEPT_DETAILED_TIMERS with all histograms ignored";
    /** How long {@link #prepareForReads} waits for background compactions before going on. */
    private static final long SETTLE_TIMEOUT_MILLIS = 10 * 60 * 1000;
    /** RocksDB's default number of levels. */
    private static final int NUM_LEVELS = 7;

    private final List<RocksObject> resources = new ArrayList<>();
    private Statistics statistics;
    private RocksDB db;
    private WriteOptions writeOptions;
    private ReadOptions readOptions;
    private ReadOptions seekOptions;
    private double configuredFpr;
    private ScanConfig scans = ScanConfig.none();
    private final boolean ribbon;

    static {
        RocksDB.loadLibrary();
    }

    /** RocksDB with its full Bloom filter. */
    public RocksDbEngine() {
        this(false);
    }

    /** RocksDB with its Ribbon filter when {@code ribbon}, else with its full Bloom filter. */
    public RocksDbEngine(boolean ribbon) {
        this.ribbon = ribbon;
    }

    /** The Bloom-equivalent bits per key that make RocksDB's Ribbon filter spend about {@code bitsPerKey}. */
    static double ribbonBloomEquivalentBits(double bitsPerKey) {
        return bitsPerKey / RIBBON_SPACE_RATIO;
    }

    @Override
    public void open(Path dir, BenchConfig config) throws IOException {
        if (db != null) {
            throw new IllegalStateException("already open");
        }
        statistics = keep(new Statistics(EnumSet.allOf(HistogramType.class)));
        Options options;
        if (ribbon) {
            double equivalent = ribbonBloomEquivalentBits(config.bitsPerKey());
            Properties table = new Properties();
            table.setProperty("block_based_table_factory", String.format(Locale.ROOT,
                    "{filter_policy=ribbonfilter:%.3f;whole_key_filtering=true;block_cache=%d}", equivalent,
                    config.blockCacheBytes()));
            try (ConfigOptions parse = new ConfigOptions();
                 DBOptions db = new DBOptions();
                 ColumnFamilyOptions cf = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(parse, table)) {
                if (cf == null) {
                    throw new IOException("RocksDB refused its Ribbon filter options: " + table);
                }
                options = keep(new Options(db, cf));
            }
            configuredFpr = BenchConfig.blockedBloomFpr(equivalent);
        } else {
            options = keep(new Options()).setTableFormatConfig(new BlockBasedTableConfig()
                    .setFilterPolicy(keep(new BloomFilter(config.bitsPerKey())))
                    .setWholeKeyFiltering(true)
                    .setBlockCache(keep(new LRUCache(config.blockCacheBytes()))));
            configuredFpr = BenchConfig.blockedBloomFpr(config.bitsPerKey());
        }
        options.setCreateIfMissing(true)
                .setStatistics(statistics)
                .setCompressionType(config.compression() == BenchConfig.Compression.LZ4
                        ? CompressionType.LZ4_COMPRESSION : CompressionType.NO_COMPRESSION)
                .setWriteBufferSize(config.memtableBytes())
                .setMaxBackgroundJobs(2)
                .setUseDirectReads(config.directReads());
        if (scans.prefixExtractor()) {
            // The filters then also hold the prefixes, beside the whole keys: RocksDB at its best for scans.
            options.useFixedLengthPrefixExtractor(scans.prefixBytes());
        }
        writeOptions = keep(new WriteOptions());
        readOptions = keep(new ReadOptions());
        // With a prefix extractor a plain seek would stay inside the seek key's prefix; seekrandom reads on.
        seekOptions = keep(new ReadOptions().setTotalOrderSeek(true));
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            closeResources();
            throw new IOException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        try {
            db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** One RocksDB {@code WriteBatch}, written with the same write options as a put. */
    @Override
    public void putBatch(byte[][] keys, byte[][] values, int count) throws IOException {
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < count; i++) {
                batch.put(keys[i], values[i]);
            }
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void delete(byte[] key) throws IOException {
        try {
            db.delete(writeOptions, key);
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void deleteRange(byte[] from, byte[] to) throws IOException {
        try {
            db.deleteRange(writeOptions, from, to);
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) throws IOException {
        try {
            int length = db.get(readOptions, key, valueBuffer);
            return length == RocksDB.NOT_FOUND ? NOT_FOUND : length;
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public int seekScan(byte[] startKey, int count, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        try (RocksIterator it = db.newIterator(seekOptions)) {
            int read = 0;
            for (it.seek(startKey); it.isValid() && read < count; it.next()) {
                it.key(keyBuffer);
                it.value(valueBuffer);
                read++;
            }
            it.status();
            return read;
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void configureScans(ScanConfig scanConfig) {
        this.scans = scanConfig;
    }

    /** Seeks the prefix with iterate_upper_bound at its successor: the prefix Bloom filter is checked on the seek. */
    @Override
    public int prefixScan(byte[] prefix, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        return bounded(prefix, PrefixExtractor.successor(prefix), keyBuffer, valueBuffer);
    }

    /** Seeks {@code from} with iterate_upper_bound {@code to}; bounds sharing a prefix let the prefix filter act. */
    @Override
    public int rangeScan(byte[] from, byte[] to, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        return bounded(from, to, keyBuffer, valueBuffer);
    }

    private int bounded(byte[] from, byte[] to, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        try (ReadOptions options = new ReadOptions();
             Slice upper = to == null ? null : new Slice(to)) {
            if (upper != null) {
                options.setIterateUpperBound(upper);
            }
            options.setAutoPrefixMode(true);
            try (RocksIterator it = db.newIterator(options)) {
                int read = 0;
                for (it.seek(from); it.isValid(); it.next()) {
                    it.key(keyBuffer);
                    it.value(valueBuffer);
                    read++;
                }
                it.status();
                return read;
            }
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * Flushes, waits for background work and, when level 0 still holds files or more than one
     * level does, compacts everything into one level ({@code compactRange}).
     */
    @Override
    public void prepareForReads() throws IOException {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
            long deadline = System.currentTimeMillis() + SETTLE_TIMEOUT_MILLIS;
            while (busy() && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            int levels = 0;
            for (int level = 0; level < NUM_LEVELS; level++) {
                levels += filesAtLevel(level) > 0 ? 1 : 0;
            }
            if (filesAtLevel(0) > 0 || levels > 1) {
                db.compactRange();
            }
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for compactions", e);
        }
    }

    /** Files at {@code level} (a string property: RocksDB has no integer form of it). */
    private long filesAtLevel(int level) throws RocksDBException {
        return Long.parseLong(db.getProperty("rocksdb.num-files-at-level" + level).trim());
    }

    private boolean busy() throws RocksDBException {
        return db.getLongProperty("rocksdb.compaction-pending") > 0
                || db.getLongProperty("rocksdb.num-running-compactions") > 0
                || db.getLongProperty("rocksdb.num-running-flushes") > 0
                || db.getLongProperty("rocksdb.mem-table-flush-pending") > 0;
    }

    @Override
    public EngineCounters counters() {
        long useful = tick(TickerType.BLOOM_FILTER_USEFUL);
        long positive = tick(TickerType.BLOOM_FILTER_FULL_POSITIVE);
        return new EngineCounters(
                tick(TickerType.NUMBER_KEYS_READ),
                useful + positive,
                tick(TickerType.BLOCK_CACHE_DATA_MISS),
                tick(TickerType.LAST_LEVEL_READ_BYTES) + tick(TickerType.NON_LAST_LEVEL_READ_BYTES),
                useful,
                positive,
                tick(TickerType.BLOOM_FILTER_FULL_TRUE_POSITIVE),
                tick(TickerType.BLOCK_CACHE_DATA_HIT),
                tick(TickerType.BLOCK_CACHE_FILTER_MISS),
                configuredFpr);
    }

    /** Filters and indexes live in table readers' native memory; nothing is mapped or on the heap. */
    @Override
    public EngineMemory memory() {
        if (db == null) {
            return EngineMemory.UNKNOWN;
        }
        try {
            return new EngineMemory(0, 0, db.getLongProperty("rocksdb.estimate-table-readers-mem"));
        } catch (RocksDBException e) {
            return EngineMemory.UNKNOWN;
        }
    }

    /** Filter bytes over entries of every live table (RocksDB's table properties), in bits. */
    @Override
    public double filterBitsPerKey() {
        if (db == null) {
            return Double.NaN;
        }
        try {
            long filterBytes = 0;
            long entries = 0;
            for (TableProperties t : db.getPropertiesOfAllTables().values()) {
                filterBytes += t.getFilterSize();
                entries += t.getNumEntries();
            }
            return entries == 0 ? Double.NaN : 8.0 * filterBytes / entries;
        } catch (RocksDBException e) {
            return Double.NaN;
        }
    }

    private long tick(TickerType ticker) {
        return statistics == null ? 0 : statistics.getTickerCount(ticker);
    }

    @Override
    public void close() throws IOException {
        try {
            if (db != null) {
                db.closeE();
            }
        } catch (RocksDBException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            db = null;
            closeResources();
        }
    }

    private <T extends RocksObject> T keep(T resource) {
        resources.add(resource);
        return resource;
    }

    private void closeResources() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        resources.clear();
        statistics = null;
    }
}
