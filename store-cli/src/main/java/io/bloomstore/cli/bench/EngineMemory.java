package io.bloomstore.cli.bench;

/**
 * What an open engine holds in memory for its tables, as far as it can say; -1 where it cannot.
 *
 * <ul>
 *   <li>{@code filterBytesMapped}: filter bytes memory-mapped from files, outside the heap
 *       (BloomStore's sidecars; RocksDB reads its filters into native memory instead: 0).</li>
 *   <li>{@code indexHeapBytes}: table index bytes on the Java heap (BloomStore's estimate, a
 *       small constant per table; RocksDB keeps its indexes off the heap: 0).</li>
 *   <li>{@code nativeTableBytes}: index and filter bytes the engine holds in native memory it
 *       allocated (RocksDB's {@code rocksdb.estimate-table-readers-mem}; BloomStore's off-heap
 *       indexes, its filters being mapped instead).</li>
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
public record EngineMemory(long filterBytesMapped, long indexHeapBytes, long nativeTableBytes) {
    /** Nothing known. */
    public static final EngineMemory UNKNOWN = new EngineMemory(-1, -1, -1);
}
