package io.bloomstore.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The console table of a run: one row per engine and workload. Columns:
 * <pre>
 *   ops/s        operations per second over the workload's wall-clock time (all threads)
 *   p50..p99.9   latency percentiles of single operations, microseconds
 *   blk/op       data blocks read from table files per operation (block-cache misses)
 *   tbl/op       tables whose key range held the key, per operation
 *   saved        filter negatives: table reads the filters avoided
 *   fpr          measured false-positive rate / the configured (theoretical) one
 *   os rd/op     read system calls per operation, from /proc/self/io (whole process)
 *   os MB        bytes the process fetched from storage (page-cache misses), /proc/self/io
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
public final class ResultTable {
    private static final String HEADER_FORMAT = "%-20s %-16s %10s %11s %8s %8s %9s %8s %6s %10s %17s %9s %8s%n";
    private static final String ROW_FORMAT = "%-20s %-16s %,10d %,11.0f %8.1f %8.1f %9.1f %8.4f %6.2f %,10d %17s %9s %8s%n";

    private ResultTable() {
    }

    public static void print(PrintWriter out, List<WorkloadResult> results) {
        out.printf(Locale.ROOT, HEADER_FORMAT, "engine", "workload", "ops", "ops/s", "p50 us", "p99 us", "p99.9 us",
                "blk/op", "tbl/op", "saved", "fpr meas/conf", "os rd/op", "os MB");
        for (WorkloadResult r : results) {
            out.printf(Locale.ROOT, ROW_FORMAT, r.engine(), r.workload().cliName(), r.ops(), r.opsPerSec(),
                    r.p50Micros(), r.p99Micros(), r.p999Micros(), r.dataBlockReadsPerOp(), r.tablesConsultedPerOp(),
                    r.diskAccessesSaved(), fpr(r), osReadsPerOp(r), osMegabytes(r));
        }
    }

    static String fpr(WorkloadResult r) {
        double measured = r.measuredFpr();
        String m = Double.isNaN(measured) ? "-" : String.format(Locale.ROOT, "%.4f", measured);
        return m + "/" + String.format(Locale.ROOT, "%.4f", r.counters().configuredFpr());
    }

    private static String osReadsPerOp(WorkloadResult r) {
        return r.osIo().map(io -> String.format(Locale.ROOT, "%.3f", r.ops() == 0 ? 0.0
                : (double) io.readSyscalls() / r.ops())).orElse("n/a");
    }

    private static String osMegabytes(WorkloadResult r) {
        return r.osIo().map(io -> String.format(Locale.ROOT, "%.1f", io.storageReadBytes() / 1e6)).orElse("n/a");
    }
}
