package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One key-value engine as the benchmark drives it: BloomStore with or without filters, or
 * RocksDB as the baseline. The harness owns the key and value buffers, so an engine whose
 * API allows it can serve a lookup without allocating.
 *
 * <p>Thread safety: after {@link #open} returns, {@link #put}, {@link #get} and
 * {@link #seekScan} may be called from several threads at once; {@link #open},
 * {@link #prepareForReads} and {@link #close} are called by one thread while no other
 * call is running. {@link #counters()} may be called at any time.
 */
public interface BenchEngine extends AutoCloseable {

    /** Value {@link #get} returns for a key that is not in the store. */
    int NOT_FOUND = -1;

    /** Opens (creating) the store in the empty directory {@code dir}, configured by {@code config}. */
    void open(Path dir, BenchConfig config) throws IOException;

    void put(byte[] key, byte[] value) throws IOException;

    /**
     * Writes the first {@code count} pairs of {@code keys} and {@code values} as one batch (the
     * fillbatch workload): in one atomic write where the engine's advice for bulk writes is to batch
     * (a write batch, one transaction), else one {@link #put} after another. The harness reuses the
     * arrays once this returns.
     */
    default void putBatch(byte[][] keys, byte[][] values, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            put(keys[i], values[i]);
        }
    }

    /** Deletes one key (a point tombstone); the deleterange workload's per-key baseline. */
    default void delete(byte[] key) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no deletes in the benchmark");
    }

    /** Deletes every key in [{@code from}, {@code to}) with one range tombstone (RocksDB's DeleteRange). */
    default void deleteRange(byte[] from, byte[] to) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no range deletion");
    }

    /**
     * Looks {@code key} up, copying as much of its value as fits into {@code valueBuffer}.
     * Returns the value's full length, or {@link #NOT_FOUND}.
     */
    int get(byte[] key, byte[] valueBuffer) throws IOException;

    /**
     * Positions at the first key ≥ {@code startKey} and reads up to {@code count} entries
     * forward, copying them into the given buffers. Returns the number of entries read.
     */
    int seekScan(byte[] startKey, int count, byte[] keyBuffer, byte[] valueBuffer) throws IOException;

    /**
     * Moves everything written so far out of the memtable into tables, waits for the background
     * work this triggers and compacts the tables into one level when level 0 still holds tables
     * or several levels do, so the read workloads that follow measure table reads on the same
     * shape in every engine and round (how many level-0 tables a fill leaves below the
     * compaction trigger is chance, and each is one more source for every seek).
     */
    void prepareForReads() throws IOException;

    /**
     * Called before {@link #open} when the run has scan workloads: the key prefix structure and
     * scan filters to configure. Engines without scan support ignore it.
     */
    default void configureScans(ScanConfig scans) {
    }

    /**
     * Reads every entry whose key starts with {@code prefix} into the buffers; returns how many.
     * The engine may use its prefix filters: {@link #configureScans} named the prefix length.
     */
    default int prefixScan(byte[] prefix, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no prefix scans");
    }

    /** Reads every entry with a key in [{@code from}, {@code to}) into the buffers; returns how many. */
    default int rangeScan(byte[] from, byte[] to, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no range scans");
    }

    /** The engine's counters since {@link #open}; the harness subtracts two snapshots. */
    EngineCounters counters();

    /** What the open store holds in memory now; unknown figures are -1. */
    default EngineMemory memory() {
        return EngineMemory.UNKNOWN;
    }

    /**
     * What the live tables' filters cost in memory: their bytes × 8 over the entries of those
     * tables, as the engine's own statistics give them; NaN when unknown or there are no tables.
     */
    default double filterBitsPerKey() {
        return Double.NaN;
    }

    @Override
    void close() throws IOException;
}
