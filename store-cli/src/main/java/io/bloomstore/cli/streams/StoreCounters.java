package io.bloomstore.cli.streams;

/**
 * One state store's read counters at the end of a run, with RocksDB's ticker meanings for both
 * engines.
 *
 * <p>Thread safety: immutable.
 *
 * @param lookups         point lookups (gets)
 * @param dataBlockReads  data blocks read from files: the disk accesses
 * @param filterNegatives lookups a table's filter answered "absent": disk accesses saved
 */
record StoreCounters(long lookups, long dataBlockReads, long filterNegatives) {
    double dataBlockReadsPerLookup() {
        return lookups == 0 ? 0 : (double) dataBlockReads / lookups;
    }
}
