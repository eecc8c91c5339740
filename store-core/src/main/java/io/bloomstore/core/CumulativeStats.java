package io.bloomstore.core;

/**
 * The engine's counters summed over every open of the store since it was created, as
 * {@link StoreStats#cumulative()}: the same names and meanings as the per-open counters of
 * {@link StoreStats}. They are saved in the store's {@code COUNTERS} file
 * (docs/format/counters.md) by background flushes (at most once a second), by {@code Store.flush()}
 * and at close, so what a process did after the last save is lost if it crashes; a counters file found damaged is reported in the log and the sums
 * start again from zero.
 *
 * <p>Thread safety: immutable.
 *
 * @param gets                   point lookups
 * @param tableLookups           tables point lookups consulted
 * @param filterNegatives        filter "absent" answers: disk accesses saved
 * @param filterPositives        filter "maybe" answers
 * @param filterTruePositives    "maybe" answers for keys the table held
 * @param dataBlockReads         data blocks read from files
 * @param bytesRead              bytes of those reads
 * @param blockCacheHits         data-block lookups served by the block cache
 * @param blockCacheMisses       data-block lookups the cache could not serve
 * @param flushes                memtables written as tables
 * @param compactions            compactions run
 * @param compactionBytesRead    bytes of the tables compactions read
 * @param compactionBytesWritten bytes of the tables and filters compactions wrote
 * @param flushBytesWritten      bytes of the tables and filters flushes wrote
 * @param userBytesWritten       key and value bytes of all writes
 * @param writeSlowdowns         write groups delayed by level 0's slowdown trigger
 * @param writeStops             times writers waited at level 0's stop trigger
 * @param prefixScans            scans confined to one prefix of the store's prefix extractor
 * @param prefixChecked          prefix filters those scans consulted (BLOOM_FILTER_PREFIX_CHECKED)
 * @param prefixUseful           tables a prefix filter ruled out, read by no scan (BLOOM_FILTER_PREFIX_USEFUL)
 * @param rangeScans             scans short enough for the range filters
 * @param rangeChecked           range filters those scans consulted
 * @param rangeUseful            tables a range filter ruled out, read by no scan
 */
public record CumulativeStats(long gets, long tableLookups, long filterNegatives, long filterPositives,
                              long filterTruePositives, long dataBlockReads, long bytesRead, long blockCacheHits,
                              long blockCacheMisses, long flushes, long compactions, long compactionBytesRead,
                              long compactionBytesWritten, long flushBytesWritten, long userBytesWritten,
                              long writeSlowdowns, long writeStops, long prefixScans, long prefixChecked,
                              long prefixUseful, long rangeScans, long rangeChecked, long rangeUseful) {

    /** Filter false positives: "maybe" for a key the table did not hold. */
    public long filterFalsePositives() {
        return filterPositives - filterTruePositives;
    }

    /** (positives − true positives) / (that + negatives); 0 before any lookup reached a filter. */
    public double measuredFpr() {
        long fp = filterFalsePositives();
        long denominator = fp + filterNegatives;
        return denominator == 0 ? 0.0 : (double) fp / denominator;
    }

    /** (flush + compaction bytes written) / user bytes written; 0 before any write. */
    public double writeAmplification() {
        return userBytesWritten == 0 ? 0 : (double) (flushBytesWritten + compactionBytesWritten) / userBytesWritten;
    }
}
