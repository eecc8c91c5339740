package io.bloomstore.core.stats;

/**
 * The engine's running counters, with RocksDB's meanings so the benchmark can compare the two:
 * <ul>
 *   <li>{@code gets}: point lookups (Store.get).
 *   <li>{@code tableLookups}: tables a point lookup consulted because their key range holds the
 *       key — each one either answered by its filter or read (with or without a filter).
 *   <li>{@code filterNegatives}: a table's filter said "absent", so its data was not read — a disk
 *       access saved (RocksDB BLOOM_FILTER_USEFUL).
 *   <li>{@code filterPositives}: a filter said "maybe" (BLOOM_FILTER_FULL_POSITIVE).
 *   <li>{@code filterTruePositives}: a filter said "maybe" and the table did hold an entry for the
 *       key (BLOOM_FILTER_FULL_TRUE_POSITIVE). Measured FPR = (positives − truePositives) /
 *       (positives − truePositives + negatives).
 *   <li>{@code dataBlockReads}/{@code bytesRead}: data blocks read from files (block-cache misses),
 *       the "disk accesses", counted in the one layer all data-block reads pass through.
 *   <li>{@code blockCacheHits}/{@code blockCacheMisses}: data-block lookups served by / missing the cache.
 *   <li>{@code filterFileReads}/{@code filterFileBytesRead}: filter sidecars read whole from their file
 *       (the payload checksum check, on open or before a table's first "absent" answer is trusted,
 *       or a load where files cannot be mapped), and their bytes. Kept apart from data-block reads so
 *       that "a missing key costs no disk read" can be checked against both.
 *   <li>{@code userBytesWritten}: key and value bytes of the batches written (tombstones count their key);
 *       {@code flushBytesWritten}: bytes of tables and filters written by flushes;
 *       {@code compactions}, {@code compactionBytesRead}/{@code compactionBytesWritten}: compactions run
 *       and the table bytes they read and wrote (filters included in writes); {@code trivialMoves}:
 *       tables moved one level down whole, which read and write nothing. Write amplification is
 *       (flush + compaction bytes written) / user bytes written.
 *   <li>{@code writeSlowdowns}/{@code writeStops}: times a writer was delayed (level 0 past its
 *       slowdown trigger) or had to wait (level 0 at its stop trigger).
 *   <li>{@code prefixChecked}: a table's prefix filter was asked whether a scan's prefix may be
 *       there (RocksDB BLOOM_FILTER_PREFIX_CHECKED); {@code prefixUseful}: it said absent, so the
 *       scan read none of the table's blocks: a disk access (at least) saved
 *       (BLOOM_FILTER_PREFIX_USEFUL); {@code prefixScans}: iterators confined to one prefix.
 *   <li>{@code rangeChecked}, {@code rangeUseful}, {@code rangeScans}: the same for range filters
 *       and iterators whose bounds span a range short enough for them (no RocksDB counterpart).
 *   <li>{@link #level(int)}: the filter and hit counters of one level.
 * </ul>
 *
 * <p>Each counter is a monotonic {@link Counter} reached through its accessor: the engine counts
 * up, everyone else reads sums (a {@link io.bloomstore.core.StoreStats} is the public copy).
 *
 * <p>Thread safety: all counters may be incremented from any thread.
 */
public final class StoreCounters {
    private final Counter gets;
    private final Counter tableLookups;
    private final Counter filterNegatives;
    private final Counter filterPositives;
    private final Counter filterTruePositives;
    private final Counter dataBlockReads = new Counter();
    private final Counter bytesRead = new Counter();
    private final Counter blockCacheHits = new Counter();
    private final Counter blockCacheMisses = new Counter();
    private final Counter filterFileReads = new Counter();
    private final Counter filterFileBytesRead = new Counter();
    private final Counter flushes = new Counter();
    private final Counter userBytesWritten = new Counter();
    private final Counter flushBytesWritten = new Counter();
    private final Counter compactions = new Counter();
    private final Counter compactionBytesRead = new Counter();
    private final Counter compactionBytesWritten = new Counter();
    private final Counter trivialMoves = new Counter();
    private final Counter rangeDeletedTables = new Counter();
    private final Counter writeSlowdowns = new Counter();
    private final Counter writeStops = new Counter();
    private final Counter prefixScans = new Counter();
    private final Counter prefixChecked = new Counter();
    private final Counter prefixUseful = new Counter();
    private final Counter rangeScans = new Counter();
    private final Counter rangeChecked = new Counter();
    private final Counter rangeUseful = new Counter();

    public Counter prefixScans() {
        return prefixScans;
    }

    public Counter prefixChecked() {
        return prefixChecked;
    }

    public Counter prefixUseful() {
        return prefixUseful;
    }

    public Counter rangeScans() {
        return rangeScans;
    }

    public Counter rangeChecked() {
        return rangeChecked;
    }

    public Counter rangeUseful() {
        return rangeUseful;
    }
    private final LevelCounters[] levels;
    private final TallyRegistry tallies;

    /** {@link ThreadTally} slots of the store-wide lookup counters; each level's follow from {@link #levelSlot}. */
    public static final int GETS = 0;
    public static final int TABLE_LOOKUPS = 1;
    public static final int FILTER_NEGATIVES = 2;
    public static final int FILTER_POSITIVES = 3;
    public static final int FILTER_TRUE_POSITIVES = 4;
    private static final int STORE_SLOTS = 5;

    /** Counters for a store of {@code numLevels} levels. */
    public StoreCounters(int numLevels) {
        tallies = new TallyRegistry(STORE_SLOTS + numLevels * LevelCounters.TALLIED);
        gets = tallied(GETS);
        tableLookups = tallied(TABLE_LOOKUPS);
        filterNegatives = tallied(FILTER_NEGATIVES);
        filterPositives = tallied(FILTER_POSITIVES);
        filterTruePositives = tallied(FILTER_TRUE_POSITIVES);
        levels = new LevelCounters[numLevels];
        for (int i = 0; i < numLevels; i++) {
            levels[i] = new LevelCounters(tallies, levelSlot(i, 0));
        }
    }

    private Counter tallied(int slot) {
        return new Counter(tallies, slot);
    }

    /**
     * The {@link ThreadTally} slot of level {@code level}'s counter {@code which} (one of
     * {@link LevelCounters#PROBES}, {@code HITS}, {@code FILTER_NEGATIVES}, {@code FILTER_POSITIVES},
     * {@code FILTER_TRUE_POSITIVES}).
     */
    public static int levelSlot(int level, int which) {
        return STORE_SLOTS + level * LevelCounters.TALLIED + which;
    }

    /**
     * A new per-thread row of the lookup counters, owned by the calling thread, which alone may
     * count in it; its counts show in this store's sums at once and after the thread ends.
     */
    public ThreadTally newTally() {
        return tallies.register();
    }

    /** Counters for a lone table outside any store (tests, tools): one level. */
    public StoreCounters() {
        this(1);
    }

    public Counter gets() {
        return gets;
    }

    public Counter tableLookups() {
        return tableLookups;
    }

    public Counter filterNegatives() {
        return filterNegatives;
    }

    public Counter filterPositives() {
        return filterPositives;
    }

    public Counter filterTruePositives() {
        return filterTruePositives;
    }

    public Counter dataBlockReads() {
        return dataBlockReads;
    }

    public Counter bytesRead() {
        return bytesRead;
    }

    public Counter blockCacheHits() {
        return blockCacheHits;
    }

    public Counter blockCacheMisses() {
        return blockCacheMisses;
    }

    public Counter filterFileReads() {
        return filterFileReads;
    }

    public Counter filterFileBytesRead() {
        return filterFileBytesRead;
    }

    public Counter flushes() {
        return flushes;
    }

    public Counter userBytesWritten() {
        return userBytesWritten;
    }

    public Counter flushBytesWritten() {
        return flushBytesWritten;
    }

    public Counter compactions() {
        return compactions;
    }

    public Counter compactionBytesRead() {
        return compactionBytesRead;
    }

    public Counter compactionBytesWritten() {
        return compactionBytesWritten;
    }

    public Counter trivialMoves() {
        return trivialMoves;
    }

    /** Tables dropped whole because range tombstones covered them (a MANIFEST edit, nothing read). */
    public Counter rangeDeletedTables() {
        return rangeDeletedTables;
    }

    public Counter writeSlowdowns() {
        return writeSlowdowns;
    }

    public Counter writeStops() {
        return writeStops;
    }

    /** The counters of one level. */
    public LevelCounters level(int level) {
        return levels[level];
    }

    /** Filter false positives: the filter said "maybe" and the table had no entry for the key. */
    public long filterFalsePositives() {
        return filterPositives.sum() - filterTruePositives.sum();
    }

    /** Measured false-positive rate over lookups of keys a table did not hold; 0 when none yet. */
    public double measuredFpr() {
        long fp = filterFalsePositives();
        long denominator = fp + filterNegatives.sum();
        return denominator == 0 ? 0.0 : (double) fp / denominator;
    }
}
