package io.bloomstore.cli.bench;

/**
 * A snapshot of an engine's lookup counters, with the meanings of RocksDB's statistics
 * tickers so that engines can be compared column by column.
 *
 * <ul>
 *   <li>{@code gets}: point lookups served.</li>
 *   <li>{@code tablesConsulted}: tables whose key range held the key, so that the engine had
 *       to ask the table's filter (or, without filters, read the table).</li>
 *   <li>{@code dataBlockReads}: data blocks read from table files, i.e. block-cache misses:
 *       the "disk accesses" the filters exist to avoid.</li>
 *   <li>{@code bytesRead}: bytes read from table files.</li>
 *   <li>{@code filterNegatives}: filter said "absent", the table was skipped: one disk
 *       access saved (RocksDB's BLOOM_FILTER_USEFUL).</li>
 *   <li>{@code filterPositives}: filter said "maybe present" (BLOOM_FILTER_FULL_POSITIVE).</li>
 *   <li>{@code filterTruePositives}: of those, the key was really there
 *       (BLOOM_FILTER_FULL_TRUE_POSITIVE).</li>
 *   <li>{@code blockCacheHits}: data blocks served from the block cache.</li>
 *   <li>{@code filterFileReads}: filters read from table files, apart from data blocks:
 *       BloomStore's whole-sidecar checksum checks (once per table), RocksDB's filter blocks
 *       read into the block cache (BLOCK_CACHE_FILTER_MISS). A missing-key lookup that reads
 *       neither a data block nor a filter touched no file.</li>
 *   <li>{@code configuredFpr}: the false-positive rate the filters were built for, in theory;
 *       1 for an engine without filters (every consulted table is read); NaN for an engine
 *       that keeps none of these counters ({@link #notKept()}: the B+tree and log-structured peers,
 *       which have no tables, filters or block-cache tickers).</li>
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
public record EngineCounters(long gets, long tablesConsulted, long dataBlockReads, long bytesRead,
        long filterNegatives, long filterPositives, long filterTruePositives, long blockCacheHits,
        long filterFileReads, double configuredFpr) {

    /** The counts accumulated between {@code earlier} and this snapshot. */
    public EngineCounters minus(EngineCounters earlier) {
        return new EngineCounters(gets - earlier.gets, tablesConsulted - earlier.tablesConsulted,
                dataBlockReads - earlier.dataBlockReads, bytesRead - earlier.bytesRead,
                filterNegatives - earlier.filterNegatives, filterPositives - earlier.filterPositives,
                filterTruePositives - earlier.filterTruePositives, blockCacheHits - earlier.blockCacheHits,
                filterFileReads - earlier.filterFileReads, configuredFpr);
    }

    /** The sum of two deltas (for aggregating workloads); keeps this snapshot's configured rate. */
    public EngineCounters plus(EngineCounters other) {
        return new EngineCounters(gets + other.gets, tablesConsulted + other.tablesConsulted,
                dataBlockReads + other.dataBlockReads, bytesRead + other.bytesRead,
                filterNegatives + other.filterNegatives, filterPositives + other.filterPositives,
                filterTruePositives + other.filterTruePositives, blockCacheHits + other.blockCacheHits,
                filterFileReads + other.filterFileReads, configuredFpr);
    }

    /** Filter answers "maybe present" for a key the table did not hold. */
    public long falsePositives() {
        return filterPositives - filterTruePositives;
    }

    /**
     * Measured false-positive rate, false positives / (filter checks of absent keys), the
     * definition RocksDB's wiki uses; NaN when no filter was asked about an absent key.
     */
    public double measuredFpr() {
        long absentChecks = filterNegatives + falsePositives();
        return absentChecks == 0 ? Double.NaN : (double) falsePositives() / absentChecks;
    }

    /** The counters of an engine that keeps none of them: zeros, and a NaN configured rate that says so. */
    public static EngineCounters notKept() {
        return zero(Double.NaN);
    }

    /** Whether the engine keeps these counters (false for {@link #notKept()}). */
    public boolean kept() {
        return !Double.isNaN(configuredFpr);
    }

    public static EngineCounters zero(double configuredFpr) {
        return new EngineCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, configuredFpr);
    }
}
