package io.bloomstore.cli.bench;

import java.util.Optional;

/**
 * What one engine did in one workload: operations, time, latency percentiles, the engine's
 * counter deltas and the operating system's read counts over the same interval.
 *
 * <p>Thread safety: immutable.
 *
 * @param found     point lookups (or seeks) that found a key
 * @param osIo      /proc/self/io deltas, empty where the OS does not provide them
 * @param round     the round of a repeated run, 0 first
 * @param writerOps puts of readwhilewriting's writer thread over the same time (0 elsewhere);
 *                  {@code ops} counts the readers only
 * @param deviceIo  reads of the store's block device (/proc/diskstats deltas, every process's),
 *                  empty where unknown
 */
public record WorkloadResult(String engine, Workload workload, long ops, double seconds,
        double p50Micros, double p99Micros, double p999Micros, long found,
        EngineCounters counters, Optional<ProcIo> osIo, int round, long writerOps, Optional<DeviceIo> deviceIo) {

    /** A result without device figures. */
    public WorkloadResult(String engine, Workload workload, long ops, double seconds, double p50Micros,
                          double p99Micros, double p999Micros, long found, EngineCounters counters,
                          Optional<ProcIo> osIo, int round, long writerOps) {
        this(engine, workload, ops, seconds, p50Micros, p99Micros, p999Micros, found, counters, osIo, round,
                writerOps, Optional.empty());
    }

    public double opsPerSec() {
        return seconds > 0 ? ops / seconds : 0;
    }

    /** Data blocks read from table files per operation (block-cache misses per op); NaN for an engine without the counter. */
    public double dataBlockReadsPerOp() {
        return counterPerOp(counters.dataBlockReads());
    }

    /** Tables whose key range held the looked-up key, per operation. */
    public double tablesConsultedPerOp() {
        return counterPerOp(counters.tablesConsulted());
    }

    /** Filter negatives: table reads the filters made unnecessary. */
    public long diskAccessesSaved() {
        return counters.filterNegatives();
    }

    /** Disk accesses saved per operation, comparable between engines with different table counts. */
    public double diskAccessesSavedPerOp() {
        return counterPerOp(counters.filterNegatives());
    }

    /** Filters read from table files per operation (sidecar checksum checks, filter-block misses). */
    public double filterFileReadsPerOp() {
        return counterPerOp(counters.filterFileReads());
    }

    /** The writer's puts per second beside readwhilewriting's readers; 0 for other workloads. */
    public double writerOpsPerSec() {
        return seconds > 0 ? writerOps / seconds : 0;
    }

    public double measuredFpr() {
        return counters.measuredFpr();
    }

    /** Device reads per operation (whole device), or NaN where unknown. */
    public double deviceReadsPerOp() {
        return deviceIo.map(d -> perOp(d.reads())).orElse(Double.NaN);
    }

    private double perOp(long count) {
        return ops == 0 ? 0 : (double) count / ops;
    }

    /** {@link #perOp} of one of the engine's own counters: NaN when the engine keeps none. */
    private double counterPerOp(long count) {
        return counters.kept() ? perOp(count) : Double.NaN;
    }
}
