package io.bloomstore.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The console tables of a run: one row per engine, workload and round; with several rounds a
 * summary per engine and workload; the cold-start and reopen probes when they ran. Columns:
 * <pre>
 *   ops/s        operations per second over the workload's wall-clock time (all threads;
 *                readwhilewriting: the readers)
 *   writer/s     readwhilewriting's writer: puts per second beside the readers
 *   p50..p99.9   latency percentiles of single operations, microseconds
 *   blk/op       data blocks read from table files per operation (block-cache misses)
 *   flt/op       filters read from table files per operation (sidecar checksum checks, mostly on
 *                the store's background thread as tables open; RocksDB filter-block misses):
 *                with blk/op, every table-file read of the workload
 *   tbl/op       tables whose key range held the key, per operation
 *   saved        filter negatives: table reads the filters avoided; saved/op per operation
 *   fpr          measured false-positive rate / the configured (theoretical) one
 *                (blk/op to fpr: "-" for the peers, which keep no such counters)
 *   os rd/op     read system calls per operation, from /proc/self/io (whole process)
 *   os MB        bytes the process fetched from storage (page-cache misses), /proc/self/io
 *   dev rd/op    reads completed by the store's block device per operation, /proc/diskstats
 *                (every process's reads of that device: an upper bound on the engine's)
 *   dev MB       bytes those device reads fetched
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
public final class ResultTable {
    private static final String HEADER_FORMAT =
            "%-20s %-16s %5s %10s %11s %10s %8s %8s %9s %8s %8s %6s %10s %8s %17s %9s %8s %9s %8s%n";
    private static final String ROW_FORMAT =
            "%-20s %-16s %5d %,10d %,11.0f %10s %8.1f %8.1f %9.1f %8s %8s %6s %10s %8s %17s %9s %8s %9s %8s%n";

    private ResultTable() {
    }

    /** Every table of the run. */
    public static void print(PrintWriter out, BenchResults run) {
        print(out, run.results());
        if (run.rounds() > 1) {
            printSummary(out, new Summary(run.results()), run.rounds());
        }
        if (!run.cold().isEmpty()) {
            printCold(out, run.cold());
        }
        if (!run.open().isEmpty()) {
            printOpen(out, run.open());
        }
        if (!run.closes().isEmpty()) {
            printCloses(out, run.closes());
        }
        if (!run.filters().isEmpty()) {
            printFilterCost(out, run.filters());
        }
        printTime(out, run.time());
    }

    private static void printTime(PrintWriter out, List<TimeSpent> time) {
        out.println();
        out.println("Wall-clock seconds per engine, all rounds (measured = the workloads' own time plus their GC):");
        out.printf(Locale.ROOT, "%-20s %9s %9s %9s %9s %9s %9s %9s%n", "engine", "warm-up", "cold", "load", "settle",
                "measured", "open", "total");
        for (TimeSpent t : time) {
            out.printf(Locale.ROOT, "%-20s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f%n", t.engine(),
                    t.seconds(TimeSpent.Phase.WARM_UP), t.seconds(TimeSpent.Phase.COLD_PROBE),
                    t.seconds(TimeSpent.Phase.LOAD), t.seconds(TimeSpent.Phase.SETTLE),
                    t.seconds(TimeSpent.Phase.MEASURED), t.seconds(TimeSpent.Phase.OPEN_PROBE), t.totalSeconds());
        }
    }

    /** One row per engine, workload and round. */
    public static void print(PrintWriter out, List<WorkloadResult> results) {
        out.printf(Locale.ROOT, HEADER_FORMAT, "engine", "workload", "round", "ops", "ops/s", "writer/s", "p50 us",
                "p99 us", "p99.9 us", "blk/op", "flt/op", "tbl/op", "saved", "saved/op", "fpr meas/conf",
                "os rd/op", "os MB", "dev rd/op", "dev MB");
        for (WorkloadResult r : results) {
            out.printf(Locale.ROOT, ROW_FORMAT, r.engine(), r.workload().cliName(), r.round() + 1, r.ops(),
                    r.opsPerSec(), writer(r), r.p50Micros(), r.p99Micros(), r.p999Micros(),
                    counter(r, "%.4f", r.dataBlockReadsPerOp()), counter(r, "%.5f", r.filterFileReadsPerOp()),
                    counter(r, "%.2f", r.tablesConsultedPerOp()), counter(r, "%,.0f", r.diskAccessesSaved()),
                    counter(r, "%.3f", r.diskAccessesSavedPerOp()), fpr(r), osReadsPerOp(r), osMegabytes(r),
                    deviceReadsPerOp(r), deviceMegabytes(r));
        }
    }

    private static void printSummary(PrintWriter out, Summary summary, int rounds) {
        out.println();
        out.printf(Locale.ROOT, "Summary over %d rounds (engine order rotated every round):%n", rounds);
        out.printf(Locale.ROOT, "%-20s %-16s %12s %12s %12s %18s %25s%n", "engine", "workload", "median ops/s",
                "min ops/s", "max ops/s", "median ratio " + Headline.BASELINE, "median ratio " + Headline.RIBBON_BASELINE);
        for (Summary.Row r : summary.rows()) {
            out.printf(Locale.ROOT, "%-20s %-16s %,12.0f %,12.0f %,12.0f %18s %25s%n", r.engine(), r.workload().cliName(),
                    r.medianOpsPerSec(), r.minOpsPerSec(), r.maxOpsPerSec(), ratio(r.medianRatioToBaseline()),
                    ratio(r.medianRatioToRibbon()));
        }
    }

    private static void printFilterCost(PrintWriter out, List<LoadCost> filters) {
        out.println();
        out.println("Filter memory per key (the loaded, settled store: filter bytes x 8 / entries of the live tables,"
                + " from each engine's own statistics) and write amplification (bytes the process sent to storage"
                + " from the fill's start to the settle's end, /proc/self/io, over the keys' and values' bytes;"
                + " the settle compacts everything into one level), and the store's files then (disk MiB):");
        out.printf(Locale.ROOT, "%-20s %5s %12s %14s %10s %10s%n", "engine", "round", "bits/key", "written MiB",
                "write amp", "disk MiB");
        for (LoadCost f : filters) {
            out.printf(Locale.ROOT, "%-20s %5d %12s %14s %10s %10s%n", f.engine(), f.round() + 1,
                    Double.isNaN(f.bitsPerKey()) ? "n/a" : String.format(Locale.ROOT, "%.2f", f.bitsPerKey()),
                    f.bytesWritten() < 0 ? "n/a" : mib(f.bytesWritten()),
                    Double.isNaN(f.writeAmplification()) ? "n/a"
                            : String.format(Locale.ROOT, "%.2f", f.writeAmplification()), mib(f.bytesOnDisk()));
        }
    }

    private static void printCold(PrintWriter out, List<ColdResult> cold) {
        out.println();
        out.println("Cold start (a fresh JVM per engine, no warm-up: its first operations):");
        out.printf(Locale.ROOT, "%-20s %5s %10s %12s %14s %14s %20s %20s%n", "engine", "round", "ops", "startup ms",
                "fill ops/s", "read ops/s", "fill cpu ms p/t/jit", "read cpu ms p/t/jit");
        for (ColdResult c : cold) {
            out.printf(Locale.ROOT, "%-20s %5d %,10d %,12.0f %,14.0f %,14.0f %20s %20s%n", c.engine(), c.round() + 1,
                    c.ops(), c.startupMillis(), c.fillOpsPerSec(), c.readOpsPerSec(),
                    ColdResult.cpuCell(c.fillCpuMillis(), c.fillThreadCpuMillis(), c.fillJitCpuMillis(), "/"),
                    ColdResult.cpuCell(c.readCpuMillis(), c.readThreadCpuMillis(), c.readJitCpuMillis(), "/"));
        }
        out.println("(cpu ms p/t/jit: processor time of the whole process / of the measuring thread / of the JIT"
                + " compiler threads during the phase)");
    }

    private static void printOpen(PrintWriter out, List<OpenResult> open) {
        out.println();
        out.println("Open (the loaded store reopened in a fresh JVM: making the engine object (RocksDB: loading its"
                + " native library), first open, its close, then a second open; heap after a GC; MiB):");
        out.printf(Locale.ROOT, "%-20s %5s %11s %9s %9s %9s %9s %10s %11s %9s %10s %10s %10s %10s %10s %12s%n", "engine",
                "round", "keys", "load ms", "open ms", "close ms", "reopen ms", "heap open", "heap reads", "rss open", "rss reads", "filters", "index heap",
                "native idx", "data disk", "read ops/s");
        for (OpenResult o : open) {
            out.printf(Locale.ROOT, "%-20s %5d %,11d %,9.0f %,9.0f %,9.1f %,9.0f %10s %11s %9s %10s %10s %10s %10s %10s %,12.0f%n",
                    o.engine(), o.round() + 1, o.keys(), o.loadMillis(), o.openMillis(), o.closeMillis(), o.reopenMillis(), mib(o.heapAfterOpenBytes()),
                    mib(o.heapAfterReadsBytes()), mib(o.rssAfterOpenBytes()), mib(o.rssAfterReadsBytes()),
                    mib(o.memory().filterBytesMapped()), mib(o.memory().indexHeapBytes()),
                    mib(o.memory().nativeTableBytes()), mib(o.dataBytesOnDisk()), o.readOpsPerSec());
        }
    }

    private static void printCloses(PrintWriter out, List<CloseResult> closes) {
        out.println();
        out.println("Close right after writes (a fill, updaterandom, readlatest, readwhilewriting: memtable unflushed,"
                + " compaction likely running; ms):");
        out.printf(Locale.ROOT, "%-20s %-16s %7s %10s %10s%n", "engine", "after", "rounds", "median ms", "max ms");
        for (CloseSummary c : CloseSummary.of(closes)) {
            out.printf(Locale.ROOT, "%-20s %-16s %7d %10.1f %10.1f%n", c.engine(), c.after().cliName(), c.rounds(),
                    c.medianMillis(), c.maxMillis());
        }
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }

    static String ratio(double r) {
        return Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.2fx", r);
    }

    static String writer(WorkloadResult r) {
        return r.workload() == Workload.READWHILEWRITING ? String.format(Locale.ROOT, "%,.0f", r.writerOpsPerSec()) : "-";
    }

    /**
     * A figure from the engine's own counters, or "-" for an engine that keeps none (the peers: no
     * tables, filters or block cache to count; a zero there would read as "no disk access").
     */
    static String counter(WorkloadResult r, String format, double value) {
        return r.counters().kept() ? String.format(Locale.ROOT, format, value) : "-";
    }

    static String fpr(WorkloadResult r) {
        if (!r.counters().kept()) {
            return "-";
        }
        double measured = r.measuredFpr();
        String m = Double.isNaN(measured) ? "-" : String.format(Locale.ROOT, "%.4f", measured);
        return m + "/" + String.format(Locale.ROOT, "%.4f", r.counters().configuredFpr());
    }

    private static String osReadsPerOp(WorkloadResult r) {
        return r.osIo().map(io -> String.format(Locale.ROOT, "%.3f", r.ops() == 0 ? 0.0
                : (double) io.readSyscalls() / r.ops())).orElse("n/a");
    }

    private static String deviceReadsPerOp(WorkloadResult r) {
        return r.deviceIo().isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.3f", r.deviceReadsPerOp());
    }

    private static String deviceMegabytes(WorkloadResult r) {
        return r.deviceIo().map(d -> String.format(Locale.ROOT, "%.1f", d.bytes() / 1e6)).orElse("n/a");
    }

    private static String osMegabytes(WorkloadResult r) {
        return r.osIo().map(io -> String.format(Locale.ROOT, "%.1f", io.storageReadBytes() / 1e6)).orElse("n/a");
    }
}
