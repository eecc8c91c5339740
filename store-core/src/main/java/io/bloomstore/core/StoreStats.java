package io.bloomstore.core;

import java.util.List;

/**
 * A point-in-time copy of a store's statistics, with RocksDB's meanings so the two engines can be
 * compared: see {@link io.bloomstore.core.stats.StoreCounters} for each counter's definition.
 *
 * <p>Thread safety: immutable.
 *
 * @param gets                point lookups
 * @param filterNegatives     lookups a table's filter answered "absent": disk accesses saved
 *                            (RocksDB BLOOM_FILTER_USEFUL)
 * @param filterPositives     filter answered "maybe" (BLOOM_FILTER_FULL_POSITIVE)
 * @param filterTruePositives "maybe" and the table held the key (BLOOM_FILTER_FULL_TRUE_POSITIVE)
 * @param measuredFpr         (positives − true positives) / (that + negatives); 0 before any lookup
 * @param configuredFpr       the false-positive rate the configured filter kind and bits per key
 *                            promise in theory; 1 when tables have no filter
 * @param dataBlockReads      data blocks read from files: the "disk accesses"
 * @param bytesRead           bytes of those reads
 * @param blockCacheHits      data-block lookups served by the block cache
 * @param blockCacheMisses    data-block lookups the cache could not serve
 * @param flushes             memtables written as tables
 * @param levels              files and bytes per level, level 0 first
 * @param filterBytes         bytes of filters mapped (or loaded) for the live tables
 * @param tableLookups        tables point lookups consulted (key in the table's range): with
 *                            filters, negatives + positives; without, the tables read
 */
public record StoreStats(long gets, long filterNegatives, long filterPositives, long filterTruePositives,
                         double measuredFpr, double configuredFpr, long dataBlockReads, long bytesRead,
                         long blockCacheHits, long blockCacheMisses, long flushes, List<LevelStats> levels,
                         long filterBytes,
                         long tableLookups) {

    /** One level's tables: how many, and their bytes (tables and filter sidecars). */
    public record LevelStats(int level, int files, long tableBytes, long filterFileBytes) {
    }

    /** Filter false positives: "maybe" for a key the table did not hold. */
    public long filterFalsePositives() {
        return filterPositives - filterTruePositives;
    }

    public int totalFiles() {
        return levels.stream().mapToInt(LevelStats::files).sum();
    }
}
