package io.bloomstore.core.stats;

import java.util.concurrent.atomic.LongAdder;

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
 *       and the table bytes they read and wrote (filters included in writes). Write amplification is
 *       (flush + compaction bytes written) / user bytes written.
 *   <li>{@code writeSlowdowns}/{@code writeStops}: times a writer was delayed (level 0 past its
 *       slowdown trigger) or had to wait (level 0 at its stop trigger).
 *   <li>{@link #level(int)}: the filter and hit counters of one level.
 * </ul>
 *
 * <p>Thread safety: all counters may be incremented from any thread.
 */
public final class StoreCounters {
    public final LongAdder gets = new LongAdder();
    public final LongAdder tableLookups = new LongAdder();
    public final LongAdder filterNegatives = new LongAdder();
    public final LongAdder filterPositives = new LongAdder();
    public final LongAdder filterTruePositives = new LongAdder();
    public final LongAdder dataBlockReads = new LongAdder();
    public final LongAdder bytesRead = new LongAdder();
    public final LongAdder blockCacheHits = new LongAdder();
    public final LongAdder blockCacheMisses = new LongAdder();
    public final LongAdder filterFileReads = new LongAdder();
    public final LongAdder filterFileBytesRead = new LongAdder();
    public final LongAdder flushes = new LongAdder();
    public final LongAdder bytesWritten = new LongAdder();
    public final LongAdder userBytesWritten = new LongAdder();
    public final LongAdder flushBytesWritten = new LongAdder();
    public final LongAdder compactions = new LongAdder();
    public final LongAdder compactionBytesRead = new LongAdder();
    public final LongAdder compactionBytesWritten = new LongAdder();
    public final LongAdder writeSlowdowns = new LongAdder();
    public final LongAdder writeStops = new LongAdder();
    private final LevelCounters[] levels;

    /** Counters for a store of {@code numLevels} levels. */
    public StoreCounters(int numLevels) {
        levels = new LevelCounters[numLevels];
        for (int i = 0; i < numLevels; i++) {
            levels[i] = new LevelCounters();
        }
    }

    /** Counters for a lone table outside any store (tests, tools): one level. */
    public StoreCounters() {
        this(1);
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
