package io.bloomstore.cli.bench;

/**
 * Reopening an engine's loaded store in a fresh JVM ({@link OpenProbe}): the cost of opening as
 * data grows, and what the open store keeps in memory. Heap figures are taken right after a
 * {@link System#gc()}, so they count live objects, not garbage; -1 marks a figure the engine or
 * the operating system does not give.
 *
 * <p>Thread safety: immutable.
 *
 * @param engine               the engine
 * @param round                the round, 0 first
 * @param keys                 keys loaded
 * @param loadMillis           time to make the engine object in the fresh JVM, before its first
 *                             open: RocksDB's class initialisation loads its native library here
 * @param openMillis           time of the process's first open of the existing store (the rest of
 *                             the engine's class loading and initialisation included)
 * @param closeMillis          time of closing the store right after that first open: a short
 *                             session's close in a fresh process, which stops whatever background
 *                             work the open started (a compaction the store was due)
 * @param reopenMillis         time of a second open after closing it: what grows with the store
 * @param heapAfterOpenBytes   heap used after the second open (the JVM's own baseline included)
 * @param heapAfterReadsBytes  heap used after {@code reads} random lookups
 * @param rssAfterOpenBytes    resident set size after the second open ({@code VmRSS} of /proc/self/status)
 * @param rssAfterReadsBytes   resident set size after the lookups
 * @param reads                random lookups of loaded keys done after open
 * @param readOpsPerSec        their throughput (first lookups of a fresh JVM: cold)
 * @param memory               filter bytes mapped, index bytes on the heap, native index and filter bytes
 * @param dataBytesOnDisk      bytes of every file in the store's directory
 * @param baselineHeapBytes    heap used in the same child before the engine's classes were touched
 */
public record OpenResult(String engine, int round, int keys, double loadMillis, double openMillis, double closeMillis,
        double reopenMillis,
        long heapAfterOpenBytes,
        long heapAfterReadsBytes, long rssAfterOpenBytes, long rssAfterReadsBytes, long reads, double readOpsPerSec,
        EngineMemory memory, long dataBytesOnDisk, long baselineHeapBytes) {
}
