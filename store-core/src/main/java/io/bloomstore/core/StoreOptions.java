package io.bloomstore.core;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.db.ClassPreloader;
import io.bloomstore.core.table.TableOptions;
import java.time.Clock;
import java.time.Duration;

/**
 * Settings of a store, fixed when it is opened. Build with {@link #builder()}; {@link #defaults()}
 * gives:
 * <ul>
 *   <li>{@code createIfMissing} true: a missing directory is created;
 *   <li>{@code memtableBytes} 4 MiB: a memtable past this size is flushed to a table;
 *   <li>{@code memtableFilterRatio} 1/64: each memtable keeps a whole-key Bloom filter of this
 *       share of {@code memtableBytes} (64 KiB of the default; at most 0.25, and 0 for none), so
 *       that a lookup skips the memtables that never took its key instead of searching their
 *       skip lists, as RocksDB's memtable filter ({@code memtable_whole_key_filtering}) does;
 *       it lives on the heap with the memtable (readers beside a writer: 1.39× the lookups
 *       without it; a fresh JVM's first lookups 0.98× RocksDB's against 0.74×: docs/benchmarks.md);
 *       the system property {@code bloomstore.memtableFilterRatio} sets the default for the whole JVM;
 *   <li>{@code blockSize} 4 KiB of uncompressed data per block;
 *   <li>{@code blockCacheBytes} unset: the store uses its {@link StoreResources}' shared block
 *       cache; set (0 disables caching), the store has a cache of its own of that size;
 *   <li>{@code compression} LZ4;
 *   <li>{@code filterKind} {@link FilterKind#RIBBON} at {@code bitsPerKey} 10: a table's key set
 *       never changes, so it gets a static ribbon filter that spends the whole budget on 9- and
 *       10-bit fingerprints (0.15–0.19% FPR, the lower for smaller tables, which need fewer
 *       slots per key), where a Bloom filter needs 13–14 bits for that rate; a query reads 9 or
 *       10 words from each of two adjacent 64-slot blocks.
 *       {@link FilterKind#BINARY_FUSE} (8-bit fingerprints, 0.39% in 9.0–10.3 bits per key, the
 *       most for the smallest tables; three reads per query, the cheapest in processor time),
 *       {@link FilterKind#BLOCKED_BLOOM} (0.95% at 10 bits per key, every probe in one 64-byte
 *       cache line) and {@link FilterKind#BLOOM} (0.82%) are the alternatives, the Bloom kinds
 *       built key by key at a fixed size; null writes tables without filters;
 *   <li>{@code maxKeyBytes} 64 KiB and {@code maxValueBytes} 32 MiB: larger keys or values are
 *       refused with {@link IllegalArgumentException};
 *   <li>{@code filterPolicy} null: {@link FilterPolicy#uniform} of {@code filterKind} and
 *       {@code bitsPerKey}; any other policy chooses each level's filter instead;
 *   <li>compaction: {@code l0CompactionTrigger} 4 level-0 tables start a compaction into level
 *       1; at {@code l0SlowdownTrigger} 20 writes are held to {@code delayedWriteRate} 16 MiB/s
 *       (a group sleeps whenever the debt reaches 1 ms) and at {@code l0StopTrigger} 36 writers
 *       wait for compaction; level 1 holds up to
 *       {@code baseLevelBytes} 256 MiB and each deeper level {@code levelSizeRatio} 10 times
 *       more (these are RocksDB's defaults: level 0 absorbs a burst of writes while a
 *       compaction runs, and the next compaction merges the whole burst at once, instead of
 *       delaying writers while level 1 is rewritten once per four tables); compaction output
 *       tables are cut at {@code targetFileBytes} 8 MiB;
 *       {@code autoCompaction} true runs compactions in the background (false leaves them to
 *       {@link Store#compact()}, and writers are then never delayed);
 *   <li>{@code maxBackgroundJobs} 2: compactions that may run at once, each on its own thread,
 *       when their tables and key ranges do not overlap (level 0 → 1 beside a deeper one, deeper
 *       ones on disjoint ranges, and a merge inside level 0 while level 0 → 1 runs), and the
 *       ranges a level 0 → 1 merge is split into; memtable flushes have a thread of their own
 *       besides, so a flush never waits behind a compaction. RocksDB counts its flush thread among
 *       its {@code max_background_jobs} (2 gives it one flush and one compaction);
 *   <li>{@code parallelCompactionTrigger}: compactions beyond the first start only while level 0
 *       holds at least this many tables (RocksDB runs more than one only when compaction falls
 *       behind); by default, where the JVM sees at most 2 processors, half way from
 *       {@code l0SlowdownTrigger} to {@code l0StopTrigger} (28), so that a second compaction takes
 *       the application's core only when the slowdown has not held level 0 (readers beside an
 *       unpaced writer ran at 0.74× RocksDB's with two compactions whenever due, 1.64× with this,
 *       and 10 M random puts at 2.24× instead of the 1.00× of one compaction only:
 *       docs/benchmarks.md), and 0 (no wait) elsewhere;
 *   <li>{@code backgroundNiceness} 0: the flush, compaction and reclaim threads keep the
 *       application's priority. Above 0 (opt-in), on Linux with Java 22 or later, each lowers
 *       itself this many nice levels below the process's main thread once, on its first task, by
 *       calling the C library's {@code setpriority} through the foreign-function API (no process
 *       is started), so that on a machine whose cores are all busy the application's threads get a
 *       core first and background work the rest (docs/benchmarks.md). It is off by default because
 *       the JDK prints a warning at a library's first native call unless the application runs with
 *       {@code --enable-native-access=ALL-UNNAMED}. On Java 17-21, or where the call fails, the
 *       threads keep their priority. The threads writers wait on (the WAL's syncs) are never
 *       lowered. The threads are the {@link StoreResources}' pools': once a store asks, a pool
 *       thread stays lowered for every store it serves (stores that want another priority use
 *       resources of their own). The system property {@code bloomstore.backgroundNiceness} sets the default for the
 *       whole JVM. RocksDB offers the same ({@code Env::LowerThreadPoolCPUPriority}), off by default;
 *   <li>{@code bytesPerSync} 1 MiB: the WAL and table files are synced in the background every
 *       megabyte written, so a memtable switch or a finished table waits for little (0: off);
 *   <li>{@code walBufferBytes} 0: every write's WAL record reaches the operating system before the
 *       write returns, so a process crash loses no acknowledged write (a power loss loses what was
 *       not synced); above 0, writes that do not sync wait in the process until that many bytes
 *       gather ({@link Builder#walBufferBytes});
 *   <li>{@code walRecovery} {@link WalRecovery#TOLERATE_TORN_TAIL}: only a torn final WAL record
 *       is dropped at open, any other damage keeps the store closed ({@link WalRecovery#POINT_IN_TIME}
 *       opens with the writes before the damage instead);
 *   <li>{@code maxManifestBytes} 64 MiB (RocksDB's default): a MANIFEST past this size is rolled
 *       while the store runs, its state written to a new one, so a long-lived store never grows one
 *       without bound;
 *   <li>{@code maxOpenFiles} 1,000 (LevelDB's default): descriptors the store may hold open,
 *       {@value #NON_TABLE_FILES} of them kept for its WAL, MANIFEST and LOCK and the rest for
 *       tables, whose {@code .sst} files are closed least recently used first and reopened on
 *       demand; {@value #UNBOUNDED_OPEN_FILES} keeps every table open (RocksDB's setting);
 *   <li>{@code directReads} false: true reads data blocks with O_DIRECT, bypassing the page
 *       cache (for data sets larger than memory, and to measure device reads); where the file
 *       system refuses O_DIRECT (tmpfs) the store logs it and reads through the page cache.
 *   <li>{@code prefixExtractor} null: when set, every table with a filter also gets a filter of
 *       its keys' prefixes (same kind and bits per prefix), and scans confined to one prefix skip
 *       the tables whose prefix filter says absent; see {@link PrefixExtractor} for what happens
 *       to tables written under another extractor.
 *   <li>{@code rangeFilter} null: when set, every table with a filter also gets a range filter
 *       over its keys' first 8 bytes ({@link RangeFilterOptions}), and iterators whose bounds
 *       span a short range skip the tables it rules out.
 *   <li>{@code jmxName} null: no JMX; a name registers the store's statistics as an MXBean
 *       {@code io.bloomstore:type=Store,name=NAME} on the platform MBean server while it is open.
 * </ul>
 *
 * <p>{@code memtableBytes} is at most {@link #MAX_MEMTABLE_BYTES} (1 GiB), which also bounds a WAL
 * segment to about that plus one write group.
 *
 * <p>Thread safety: immutable.
 */
public final class StoreOptions {
    public static final int DEFAULT_MAX_KEY_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_VALUE_BYTES = 32 * 1024 * 1024;
    /** {@code memtableFilterRatio}'s default: 64 KiB of filter for the default 4 MiB memtable. */
    public static final double DEFAULT_MEMTABLE_FILTER_RATIO = 1.0 / 64;
    /** The largest {@code memtableFilterRatio}. */
    public static final double MAX_MEMTABLE_FILTER_RATIO = 0.25;
    /** System property: {@code memtableFilterRatio}'s default for every store the JVM opens (1/64 without it). */
    public static final String MEMTABLE_FILTER_RATIO_PROPERTY = "bloomstore.memtableFilterRatio";
    /** The largest {@code memtableBytes}: a memtable, and so a WAL segment, stays below about 1 GiB. */
    public static final long MAX_MEMTABLE_BYTES = 1L << 30;
    public static final int DEFAULT_MAX_OPEN_FILES = 1000;
    /** {@code maxOpenFiles} value that keeps every table file open. */
    public static final int UNBOUNDED_OPEN_FILES = -1;
    /** Descriptors of {@code maxOpenFiles} kept for files other than tables (as LevelDB keeps 10). */
    public static final int NON_TABLE_FILES = 10;
    /** The smallest bounded {@code maxOpenFiles}: the non-table files plus ten tables. */
    public static final int MIN_MAX_OPEN_FILES = NON_TABLE_FILES + 10;
    /** The largest {@code backgroundNiceness}: Linux's lowest priority. */
    public static final int MAX_BACKGROUND_NICENESS = 19;
    /** System property: {@code backgroundNiceness}'s default for every store the JVM opens (0 without it). */
    public static final String BACKGROUND_NICENESS_PROPERTY = "bloomstore.backgroundNiceness";
    /** The largest {@code walBufferBytes}: the WAL writer's buffer grows no further (1 MiB). */
    public static final int MAX_WAL_BUFFER_BYTES = 1 << 20;
    /** The largest {@code maxBackgroundJobs}: one thread each. */
    public static final int MAX_BACKGROUND_JOBS = 64;

    /** The settings as built ({@link StoreOptionsRules#resolve}): a copy of their own, never written again. */
    private final StoreSettings settings;
    private final TableOptions tableOptions;
    private final FilterPolicy filterPolicy;

    private StoreOptions(Builder b) {
        StoreOptionsRules.check(b.settings);
        this.settings = StoreOptionsRules.resolve(b.settings);
        this.tableOptions = StoreOptionsRules.tableOptions(settings);
        this.filterPolicy = StoreOptionsRules.filterPolicy(settings);
    }

    /** The operator {@link Store#merge} operands are combined with, or null (merges refused). */
    public MergeOperator mergeOperator() {
        return settings.mergeOperator;
    }

    /** The rule compaction applies to values, or null. */
    public CompactionFilter compactionFilter() {
        return settings.compactionFilter;
    }

    /** How long a value lives after its write, or null for ever. */
    public Duration ttl() {
        return settings.ttl;
    }

    /** The options of keyspaces by name, for those that exist when the store opens ({@link Builder#keyspaceOptions}). */
    public java.util.Map<String, KeyspaceOptions> keyspaceOptions() {
        return settings.keyspaceOptions;
    }

    /** The clock write times and expiry are read from (the system clock unless set). */
    public Clock clock() {
        return settings.clock;
    }

    public static StoreOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        // Options are made right before a store opens: the classes the open needs start loading
        // on another thread now (once per process; see ClassPreloader).
        ClassPreloader.startOnce();
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.settings.setAll(settings);
        // The bits per key the tables have: without a filter, TableOptions' default.
        b.settings.bitsPerKey = tableOptions.bitsPerKey();
        return b;
    }

    public boolean createIfMissing() {
        return settings.createIfMissing;
    }

    public long memtableBytes() {
        return settings.memtableBytes;
    }

    /** Share of {@link #memtableBytes()} each memtable's whole-key filter takes; 0 for none. */
    public double memtableFilterRatio() {
        return settings.memtableFilterRatio;
    }

    public int blockSize() {
        return tableOptions.blockSize();
    }

    /**
     * The store's own block cache size, when it has one ({@link #ownBlockCache()}); otherwise the
     * store uses its {@link #resources()}' shared cache and this is the default it would have had.
     */
    public long blockCacheBytes() {
        return settings.blockCacheBytes;
    }

    /** Whether {@code blockCacheBytes} was set, giving the store a cache of its own instead of its resources' shared one. */
    public boolean ownBlockCache() {
        return settings.ownBlockCache;
    }

    /** What the store shares with others: threads, memtable budget, block cache ({@link StoreResources}). */
    public StoreResources resources() {
        return settings.resources == null ? StoreResources.shared() : settings.resources;
    }

    public Compression compression() {
        return tableOptions.compression();
    }

    /** The filter kind of new tables, or null for none. */
    public FilterKind filterKind() {
        return tableOptions.filterKind();
    }

    public double bitsPerKey() {
        return tableOptions.bitsPerKey();
    }

    public int maxKeyBytes() {
        return settings.maxKeyBytes;
    }

    public int maxValueBytes() {
        return settings.maxValueBytes;
    }

    /** Chooses each level's filter; by default uniform at {@link #filterKind()} and {@link #bitsPerKey()}. */
    public FilterPolicy filterPolicy() {
        return filterPolicy;
    }

    public int l0CompactionTrigger() {
        return settings.l0CompactionTrigger;
    }

    public int l0SlowdownTrigger() {
        return settings.l0SlowdownTrigger;
    }

    /** Bytes per second writes are held to while level 0 is at its slowdown trigger. */
    public long delayedWriteRate() {
        return settings.delayedWriteRate;
    }

    /**
     * Every this many bytes written to the WAL or to a table file, the file is synced in the
     * background; 0 when off.
     */
    public long bytesPerSync() {
        return settings.bytesPerSync;
    }

    /**
     * Bytes of WAL records that writes which do not sync may leave in the process before they are
     * handed to the operating system; 0 (the default) hands each write's over before it returns.
     */
    public int walBufferBytes() {
        return settings.walBufferBytes;
    }

    public int l0StopTrigger() {
        return settings.l0StopTrigger;
    }

    public int levelSizeRatio() {
        return settings.levelSizeRatio;
    }

    public long baseLevelBytes() {
        return settings.baseLevelBytes;
    }

    public long targetFileBytes() {
        return settings.targetFileBytes;
    }

    public boolean autoCompaction() {
        return settings.autoCompaction;
    }

    /** Compactions that may run at once (flushes have a thread of their own besides). */
    public int maxBackgroundJobs() {
        return settings.maxBackgroundJobs;
    }

    /** Nice levels the flush and compaction threads run below their starting priority (Linux); 0: unchanged. */
    public int backgroundNiceness() {
        return settings.backgroundNiceness;
    }

    /**
     * Level-0 tables from which compactions beyond the first may start (up to
     * {@link #maxBackgroundJobs()}); below it one runs at a time. 0: no wait.
     */
    public int parallelCompactionTrigger() {
        return settings.parallelCompactionTrigger;
    }

    /** What opening the store does with damaged WAL segments. */
    public WalRecovery walRecovery() {
        return settings.walRecovery;
    }

    /** The MANIFEST size past which it is rolled while the store runs. */
    public long maxManifestBytes() {
        return settings.maxManifestBytes;
    }

    /** The settings of the tables' range filters, or null for none. */
    public RangeFilterOptions rangeFilter() {
        return tableOptions.rangeFilter();
    }

    /** The extractor of the tables' prefix filters, or null for none. */
    public PrefixExtractor prefixExtractor() {
        return tableOptions.prefixExtractor();
    }

    /** The name the statistics are registered under in JMX while the store is open; null for none. */
    public String jmxName() {
        return settings.jmxName;
    }

    /** Target size of level {@code level} ≥ 1: baseLevelBytes · levelSizeRatio^(level − 1). */
    public double maxBytesForLevel(int level) {
        if (level < 1) {
            throw new IllegalArgumentException("level 0 is sized by table count, not bytes");
        }
        return settings.baseLevelBytes * Math.pow(settings.levelSizeRatio, level - 1);
    }

    /**
     * The false-positive rate the configured filter kind promises in theory: 0.6185^bitsPerKey for
     * a standard Bloom filter at its optimal k, the Poisson block formula for a blocked one
     * (512-bit blocks), 2^−fingerprint bits for ribbon and binary fuse, 1 without filter. A non-uniform
     * {@link #filterPolicy()} states its rates per level in {@link StoreStats.LevelStats}.
     */
    public double configuredFpr() {
        FilterKind kind = tableOptions.filterKind();
        return kind == null ? 1.0 : FilterChoice.filter(kind, tableOptions.bitsPerKey(), "configured").theoreticalFpr();
    }

    @Override
    public String toString() {
        return settings.describe(tableOptions, filterPolicy);
    }

    /** Descriptors the store may hold open, or {@link #UNBOUNDED_OPEN_FILES}. */
    public int maxOpenFiles() {
        return settings.maxOpenFiles;
    }

    /**
     * Table files the store keeps open at most: {@code maxOpenFiles} less the
     * {@value #NON_TABLE_FILES} kept for other files, or -1 when unbounded.
     */
    public int tableFileCacheCapacity() {
        return settings.maxOpenFiles == UNBOUNDED_OPEN_FILES ? UNBOUNDED_OPEN_FILES : settings.maxOpenFiles - NON_TABLE_FILES;
    }

    /** Whether data blocks are read with O_DIRECT, bypassing the page cache. */
    public boolean directReads() {
        return settings.directReads;
    }

    /** Collects settings; {@link #build()} checks them. Thread safety: not thread-safe. */
    public static final class Builder {
        /** The settings so far, each at its default until set. */
        final StoreSettings settings = StoreSettings.defaults();

        private Builder() {
        }

        /**
         * What the store shares with others (threads, memtable budget, block cache); without it,
         * {@link StoreResources#shared()}. The resources must outlive the store.
         */
        public Builder resources(StoreResources r) {
            if (r == null) {
                throw new IllegalArgumentException("resources must not be null (leave them unset for StoreResources.shared())");
            }
            settings.resources = r;
            return this;
        }

        /** The MANIFEST size past which it is rolled while the store runs (at least 1024). */
        public Builder maxManifestBytes(long v) {
            settings.maxManifestBytes = v;
            return this;
        }

        /** What opening does with damaged WAL segments; see {@link WalRecovery}. */
        public Builder walRecovery(WalRecovery v) {
            settings.walRecovery = v;
            return this;
        }

        /**
         * Descriptors the store may hold open: at least {@value #MIN_MAX_OPEN_FILES}, or
         * {@value #UNBOUNDED_OPEN_FILES} to keep every table file open.
         */
        public Builder maxOpenFiles(int v) {
            settings.maxOpenFiles = v;
            return this;
        }

        /** Whether data blocks are read with O_DIRECT, bypassing the operating system's page cache. */
        public Builder directReads(boolean v) {
            settings.directReads = v;
            return this;
        }

        /** Gives every table with a filter a range filter of these settings; null (the default) for none. */
        public Builder rangeFilter(RangeFilterOptions v) {
            settings.rangeFilter = v;
            return this;
        }

        /** Gives every table with a filter a prefix filter cut by this extractor; null (the default) for none. */
        public Builder prefixExtractor(PrefixExtractor v) {
            settings.prefixExtractor = v;
            return this;
        }

        /**
         * Registers the store's statistics in JMX under {@code io.bloomstore:type=Store,name=NAME}
         * while it is open (live values; unregistered at close). Null, the default, registers
         * nothing. Opening fails with {@link IllegalStateException} when another open store has
         * the name.
         */
        public Builder jmxName(String name) {
            settings.jmxName = name;
            return this;
        }

        /** Chooses each level's filter; null (the default) is uniform at filterKind and bitsPerKey. */
        public Builder filterPolicy(FilterPolicy v) {
            settings.filterPolicy = v;
            return this;
        }

        /** Level-0 table counts that start a compaction, delay writers, and stop them. */
        public Builder l0Triggers(int compaction, int slowdown, int stop) {
            settings.l0CompactionTrigger = compaction;
            settings.l0SlowdownTrigger = slowdown;
            settings.l0StopTrigger = stop;
            return this;
        }

        /**
         * Bytes per second writes are held to while level 0 holds {@code l0SlowdownTrigger} tables
         * (RocksDB's {@code delayed_write_rate}, also 16 MiB/s by default); at least 1024.
         */
        public Builder delayedWriteRate(long bytesPerSecond) {
            settings.delayedWriteRate = bytesPerSecond;
            return this;
        }

        /**
         * Background writeback: every {@code bytes} written to the WAL or to a table file, the file
         * is synced on a background thread while writing goes on (RocksDB's
         * {@code wal_bytes_per_sync} and {@code bytes_per_sync}), so the sync a memtable switch or
         * a finished table must make waits for only the last stretch. Default 1 MiB; 0 turns it
         * off. It helps large records (1 KiB values: fills 10–30% faster) and costs small ones a
         * little (100-byte fillrandom about 5% slower), measured in docs/benchmarks.md; it never changes
         * what is durable when.
         */
        public Builder bytesPerSync(long bytes) {
            settings.bytesPerSync = bytes;
            return this;
        }

        /**
         * Lets writes that do not sync leave their WAL records in the process until {@code bytes}
         * of them gather, then hands them to the operating system in one call (RocksDB's
         * {@code manual_wal_flush} with a bound). Default 0: each write's records reach the
         * operating system before it returns, so a process crash loses no acknowledged write.
         *
         * <p>Above 0 a process crash (kill -9, an out-of-memory kill) loses the newest writes still
         * in the buffer: fewer than {@code bytes} of records, always the newest (what recovery
         * finds is a prefix of the writes, never one with a hole). A power loss loses what it lost
         * before (whatever was not synced). A sync write ({@link WriteOptions#SYNC}), a memtable
         * switch, {@link Store#flush()}, {@link Store#checkpoint}, a backup and {@link Store#close()}
         * hand the buffer over first; a secondary or a second reader of the files sees only what
         * was handed over. This is the durability of stores without a log, such as H2's MVStore
         * (which loses its last auto-commit interval), at less cost per write: a single writer's
         * small puts skip one system call each (about 1 µs). At most {@value
         * StoreOptions#MAX_WAL_BUFFER_BYTES}.
         */
        public Builder walBufferBytes(int bytes) {
            settings.walBufferBytes = bytes;
            return this;
        }

        public Builder levelSizeRatio(int v) {
            settings.levelSizeRatio = v;
            return this;
        }

        public Builder baseLevelBytes(long v) {
            settings.baseLevelBytes = v;
            return this;
        }

        public Builder targetFileBytes(long v) {
            settings.targetFileBytes = v;
            return this;
        }

        public Builder autoCompaction(boolean v) {
            settings.autoCompaction = v;
            return this;
        }

        /** Compactions that may run at once, 1 to {@value StoreOptions#MAX_BACKGROUND_JOBS} (default 2). */
        public Builder maxBackgroundJobs(int v) {
            settings.maxBackgroundJobs = v;
            return this;
        }

        /**
         * Nice levels, 0 to {@value StoreOptions#MAX_BACKGROUND_NICENESS}, the flush and compaction
         * threads run below the process's main thread, on Linux (default 0, or the system
         * property {@value StoreOptions#BACKGROUND_NICENESS_PROPERTY}; 0: unchanged).
         */
        public Builder backgroundNiceness(int v) {
            settings.backgroundNiceness = v;
            return this;
        }

        /**
         * Level-0 tables from which compactions beyond the first may start; 0 lets them start
         * whenever a level needs one. Default: half way from {@code l0SlowdownTrigger} to
         * {@code l0StopTrigger} where the JVM sees at most 2 processors, 0 elsewhere.
         */
        public Builder parallelCompactionTrigger(int level0Tables) {
            settings.parallelCompactionTrigger = level0Tables;
            return this;
        }

        public Builder createIfMissing(boolean v) {
            settings.createIfMissing = v;
            return this;
        }

        public Builder memtableBytes(long v) {
            settings.memtableBytes = v;
            return this;
        }

        /**
         * Share of {@code memtableBytes} each memtable's whole-key filter takes (0 to
         * {@value #MAX_MEMTABLE_FILTER_RATIO}; 0 for none; default 1/64).
         */
        public Builder memtableFilterRatio(double v) {
            settings.memtableFilterRatio = v;
            return this;
        }

        public Builder blockSize(int v) {
            settings.blockSize = v;
            return this;
        }

        public Builder blockCacheBytes(long v) {
            settings.blockCacheBytes = v;
            settings.ownBlockCache = true;
            return this;
        }

        public Builder compression(Compression v) {
            settings.compression = v;
            return this;
        }

        /** The filter kind of new tables (RIBBON, BINARY_FUSE, BLOOM or BLOCKED_BLOOM), or null for no filters. */
        public Builder filterKind(FilterKind v) {
            settings.filterKind = v;
            return this;
        }

        public Builder bitsPerKey(double v) {
            settings.bitsPerKey = v;
            return this;
        }

        public Builder maxKeyBytes(int v) {
            settings.maxKeyBytes = v;
            return this;
        }

        public Builder maxValueBytes(int v) {
            settings.maxValueBytes = v;
            return this;
        }

        /**
         * The operator that combines {@link Store#merge} operands (e.g. {@link MergeOperators#int64Add()});
         * null (the default) makes {@code merge} refused. A store whose data holds operands must be
         * opened with the same operator again: a read of such a key without one fails.
         */
        public Builder mergeOperator(MergeOperator v) {
            settings.mergeOperator = v;
            return this;
        }

        /** A rule compaction applies to the values it rewrites ({@link CompactionFilter}); null for none. */
        public Builder compactionFilter(CompactionFilter v) {
            settings.compactionFilter = v;
            return this;
        }

        /**
         * How long a value lives: once {@code ttl} has passed since its write (the commit time by
         * {@link #clock}), reads no longer return it and compaction removes it. Each value written
         * while a TTL is set carries its write time (8 bytes more per entry on disk and in memory);
         * values written without one never expire. Null (the default): no TTL. Not with a merge
         * operator.
         */
        public Builder ttl(Duration v) {
            settings.ttl = v;
            return this;
        }

        /**
         * The options of keyspace {@code name} whenever this store opens with it (created earlier,
         * or later with {@link Store#keyspace(String)}): a keyspace's options are fixed while the
         * store is open, as a RocksDB column family's are given at open. Keyspaces not named here
         * take the store's options.
         */
        public Builder keyspaceOptions(String name, KeyspaceOptions options) {
            if (name == null || options == null) {
                throw new IllegalArgumentException("keyspace name and options must not be null");
            }
            settings.keyspaceOptions.put(name, options);
            return this;
        }

        /** The clock for write times and expiry (default {@link Clock#systemUTC()}); tests give a controllable one. */
        public Builder clock(Clock v) {
            settings.clock = v;
            return this;
        }

        public StoreOptions build() {
            return new StoreOptions(this);
        }
    }
}
