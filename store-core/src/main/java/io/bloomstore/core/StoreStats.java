package io.bloomstore.core;

import java.util.List;

import io.bloomstore.bloom.storage.OffHeapBackend;

/**
 * A point-in-time copy of a store's statistics, with RocksDB's meanings so the two engines can be
 * compared: see {@link io.bloomstore.core.stats.StoreCounters} for each counter's definition.
 *
 * <p>The counters ({@code gets}, {@code filterNegatives}, ..., {@code writeStops}) count since this
 * {@link Store} was opened: they start at zero at every open. {@link #cumulative()} holds the same
 * counters since the store was created.
 *
 * <p>Thread safety: immutable.
 *
 * @param gets                   point lookups
 * @param filterNegatives        lookups a table's filter answered "absent": disk accesses saved
 *                               (RocksDB BLOOM_FILTER_USEFUL)
 * @param filterPositives        filter answered "maybe" (BLOOM_FILTER_FULL_POSITIVE)
 * @param filterTruePositives    "maybe" and the table held the key (BLOOM_FILTER_FULL_TRUE_POSITIVE)
 * @param measuredFpr            (positives − true positives) / (that + negatives); 0 before any lookup
 * @param configuredFpr          the false-positive rate the configured filter kind and bits per key
 *                               promise in theory; 1 when tables have no filter
 * @param dataBlockReads         data blocks read from files: the "disk accesses"
 * @param bytesRead              bytes of those reads
 * @param blockCacheHits         data-block lookups served by the block cache
 * @param blockCacheMisses       data-block lookups the cache could not serve
 * @param flushes                memtables written as tables
 * @param levels                 per level, level 0 first: tables, bytes, filters and their measured effect
 * @param filterBytes            bytes of filters mapped (or loaded) for the live tables so far: a table's filter
 *                               is mapped by its first lookup or scan
 * @param compactions            compactions run (background and {@link Store#compact()})
 * @param compactionBytesRead    bytes of the tables compactions read
 * @param compactionBytesWritten bytes of the tables and filters compactions wrote
 * @param flushBytesWritten      bytes of the tables and filters flushes wrote
 * @param userBytesWritten       key and value bytes of all writes
 * @param writeSlowdowns         write groups delayed because level 0 passed its slowdown trigger
 * @param writeStops             times writers waited because level 0 reached its stop trigger
 * @param filterPolicy           the name of the filter policy
 * @param tableLookups           tables point lookups consulted (key in the table's range): with
 *                               filters, negatives + positives; without, the tables read
 * @param filterFileReads        filter sidecars read whole from their file to check their payload
 *                               checksums (on open, or before a table's first "absent" answer is
 *                               trusted) or loaded where files cannot be mapped: reads that are
 *                               not data-block reads, counted apart
 * @param filterFileBytesRead    bytes of those sidecar reads
 * @param indexHeapBytes         estimated heap bytes of the live tables' indexes: a small constant per
 *                               table, the indexes themselves being off the heap
 * @param indexOffHeapBytes      bytes of the live tables' indexes held off the heap (last keys and
 *                               block handles of every data block)
 * @param trivialMoves           tables a compaction moved one level down unchanged instead of
 *                               merging them (no bytes read or written; not in {@code compactions})
 * @param health                 the background error that made the store read-only, and what
 *                               point-in-time WAL recovery dropped at open
 * @param prefixScans            iterators whose bounds confine them to one prefix of the store's
 *                               prefix extractor (prefix filters consulted)
 * @param prefixChecked          prefix filters asked by those scans (BLOOM_FILTER_PREFIX_CHECKED)
 * @param prefixUseful           of those, answers "absent": tables the scans did not read, disk
 *                               accesses saved (BLOOM_FILTER_PREFIX_USEFUL)
 * @param rangeScans             iterators whose bounds span a range short enough for the range
 *                               filters (range filters consulted)
 * @param rangeChecked           range filters asked by those scans
 * @param rangeUseful            of those, answers "absent": tables the scans did not read
 * @param tables                 per live table, level 0 first: its filter memory by section
 * @param cumulative             the same counters summed over every open since the store was
 *                               created (saved at each flush and at close)
 * @param blockCacheBytes        bytes of this store's blocks in its block cache now (its own cache,
 *                               or its share of its resources' shared one)
 * @param rangeTombstones        live range tombstones now: those in the MANIFEST and in memtables not
 *                               yet flushed ({@link Store#deleteRange})
 * @param rangeDeletedTables     tables dropped whole because range tombstones covered them (a MANIFEST
 *                               edit, no bytes read)
 */
public record StoreStats(long gets, long filterNegatives, long filterPositives, long filterTruePositives,
                         double measuredFpr, double configuredFpr, long dataBlockReads, long bytesRead,
                         long blockCacheHits, long blockCacheMisses, long flushes, List<LevelStats> levels,
                         long filterBytes, long compactions, long compactionBytesRead, long compactionBytesWritten,
                         long flushBytesWritten, long userBytesWritten, long writeSlowdowns, long writeStops,
                         String filterPolicy, long tableLookups, long filterFileReads,
                         long filterFileBytesRead, long indexHeapBytes, long indexOffHeapBytes, long trivialMoves, Health health, long prefixScans,
                         long prefixChecked, long prefixUseful, long rangeScans, long rangeChecked, long rangeUseful,
                         List<TableFilterStats> tables, CumulativeStats cumulative, long blockCacheBytes,
                         long rangeTombstones, long rangeDeletedTables) {

    /**
     * One table's filter memory: the sidecar's sections, mapped (or loaded) while the table is live.
     *
     * @param level             the table's level
     * @param fileNumber        the table's number
     * @param keyFilterBytes    bytes of the key filter (header, payload, trailer); 0 without filter
     * @param prefixFilterBytes bytes of the prefix filter; 0 without one
     * @param rangeFilterBytes  bytes of the range filter; 0 without one
     * @param prefixExtractor   the extractor that built the prefix filter ({@code fixed:N},
     *                          {@code upto:HH}), or null
     * @param sidecarBytes      bytes of the whole sidecar file (sections, directory and padding)
     */
    public record TableFilterStats(int level, long fileNumber, long keyFilterBytes, long prefixFilterBytes,
                                   long rangeFilterBytes, String prefixExtractor, long sidecarBytes) {
    }

    /**
     * Whether the store is whole and writable.
     *
     * @param backgroundError    the failure (a flush, compaction or WAL write) after which the store
     *                           refuses writes, as its class and message with its cause's; null while
     *                           none happened
     * @param walRecoveryDropped what {@link WalRecovery#POINT_IN_TIME} dropped when the store was
     *                           opened (file, offset, sequence range, cause); null when nothing was
     */
    public record Health(String backgroundError, String walRecoveryDropped) {
        /** Whether the store accepts writes (no background error). */
        public boolean writable() {
            return backgroundError == null;
        }
    }

    /**
     * One level.
     *
     * @param level               the level
     * @param files               tables
     * @param tableBytes          bytes of the tables
     * @param filterFileBytes     bytes of their filter sidecars: the level's filter memory
     * @param entries             internal entries in the tables
     * @param policy              the filter the policy chooses now for new tables at this level
     *                            (kind, bits per key, and whether and why it is skipped)
     * @param expectedFpr         the live tables' filter rate in theory, weighted by entries
     *                            (1 for tables without filter; 0 for an empty level)
     * @param filterNegatives     this level's filter "absent" answers
     * @param filterPositives     this level's filter "maybe" answers
     * @param filterTruePositives "maybe" answers for keys the table held
     * @param measuredFpr         this level's measured false-positive rate
     * @param probes              lookups that reached a table of this level with the key in its range
     * @param hitRatio            of those, the fraction that found the key here: the measured
     *                            a-priori hit ratio (NaN before any probe)
     * @param filterBytesSaved    when the policy skips this level's filter: the bytes such a filter
     *                            would take for the entries of the level's tables that have none
     *                            (a table a trivial move brought down keeps the filter it was
     *                            written with, counted in {@code filterFileBytes}); else 0
     * @param prefixChecked       this level's prefix filters asked by prefix-confined scans
     * @param prefixUseful        of those, "absent" answers: tables of this level a scan skipped
     * @param prefixFilterBytes   bytes of the level's prefix filters (within filterFileBytes)
     * @param rangeChecked        this level's range filters asked by short-range scans
     * @param rangeUseful         of those, "absent" answers: tables of this level a scan skipped
     * @param rangeFilterBytes    bytes of the level's range filters (within filterFileBytes)
     */
    public record LevelStats(int level, int files, long tableBytes, long filterFileBytes, long entries,
                             FilterChoice policy, double expectedFpr, long filterNegatives, long filterPositives,
                             long filterTruePositives, double measuredFpr, long probes, double hitRatio,
                             long filterBytesSaved, long prefixChecked, long prefixUseful, long prefixFilterBytes,
                             long rangeChecked, long rangeUseful, long rangeFilterBytes) {

        /** A level without scan filter counters. */
        public LevelStats(int level, int files, long tableBytes, long filterFileBytes, long entries,
                          FilterChoice policy, double expectedFpr, long filterNegatives, long filterPositives,
                          long filterTruePositives, double measuredFpr, long probes, double hitRatio,
                          long filterBytesSaved) {
            this(level, files, tableBytes, filterFileBytes, entries, policy, expectedFpr, filterNegatives,
                    filterPositives, filterTruePositives, measuredFpr, probes, hitRatio, filterBytesSaved, 0, 0, 0, 0, 0,
                    0);
        }
    }

    /**
     * How this JVM reaches filter memory: {@code chronicle-bytes} when Chronicle Bytes initializes
     * (the JVM has the {@code --add-opens} flags), else {@code jdk-bytebuffer}, the JDK's own
     * mappings. Chosen once per JVM; same file format and answers either way.
     */
    public String filterMemory() {
        return OffHeapBackend.active().label();
    }

    /** Filter false positives: "maybe" for a key the table did not hold. */
    public long filterFalsePositives() {
        return filterPositives - filterTruePositives;
    }

    public int totalFiles() {
        // A loop, not a stream: the one-shot `stats` command would link the process's first
        // lambda and method reference here, some 9 ms.
        int files = 0;
        for (LevelStats l : levels) {
            files += l.files();
        }
        return files;
    }

    /**
     * (flush + compaction bytes written) / user bytes written: bytes the store wrote to tables for
     * each byte it was given (the WAL not counted); 0 before any write.
     */
    public double writeAmplification() {
        return userBytesWritten == 0 ? 0 : (double) (flushBytesWritten + compactionBytesWritten) / userBytesWritten;
    }

    /**
     * Expected data-block reads of a lookup for a missing key whose key lies in every table's range
     * (the worst case): the sum of the level-0 tables' filter rates plus one rate per deeper level.
     */
    public double expectedReadsPerMissingLookup() {
        double sum = 0;
        for (LevelStats l : levels) {
            sum += l.level() == 0 ? l.expectedFpr() * l.files() : l.expectedFpr();
        }
        return sum;
    }
}
