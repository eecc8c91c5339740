package io.bloomstore.cli.bench;

/**
 * What loading the store cost an engine in one round, read once the loaded store has settled for
 * the reads: its filters' memory, from the engine's own statistics
 * ({@link BenchEngine#filterBitsPerKey()}), and the bytes the process sent to storage from the start
 * of the fill to the end of the settle ({@link ProcIo#storageWriteBytes()}: WAL, flushes,
 * compactions, and the settle's compaction of everything into one level, which both engines do),
 * and the bytes of the store's files at that point.
 *
 * <p>Thread safety: immutable.
 *
 * @param engine       the engine
 * @param round        the round, from 0
 * @param bitsPerKey   filter bytes × 8 over the live tables' entries; NaN when the engine cannot say
 * @param bytesWritten bytes written to storage during the fill and the settle; -1 where the
 *                     operating system does not say
 * @param userBytes    bytes of the keys and values the fill wrote
 * @param bytesOnDisk  bytes of the store directory's files after the fill and the settle (WAL, tables,
 *                     logs, whatever the engine keeps); -1 where they could not be listed
 */
public record LoadCost(String engine, int round, double bitsPerKey, long bytesWritten, long userBytes,
        long bytesOnDisk) {
    /** Bytes written to storage per byte of keys and values written; NaN where unknown. */
    public double writeAmplification() {
        return bytesWritten < 0 || userBytes <= 0 ? Double.NaN : (double) bytesWritten / userBytes;
    }
}
