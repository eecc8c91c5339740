package io.bloomstore.cli.streams;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console table of {@code bench-streams}: per workload and engine the median events/s of
 * the rounds (and their range), data-block reads per lookup and disk accesses saved (filter
 * negatives) of the last round, and BloomStore's ratio to RocksDB; then restore records/s (best
 * of the rounds).
 *
 * <p>Thread safety: stateless.
 */
final class StreamsTable {
    private StreamsTable() {
    }

    static void print(PrintWriter out, List<StreamsResult> results, Map<StreamsEngine, Double> restore, long changelog) {
        out.printf(Locale.ROOT, "%n%-10s %-11s %12s %14s %23s %11s %12s %8s%n", "workload", "engine", "events",
                "events/s", "range (rounds)", "blk/lookup", "saved", "ratio");
        for (StreamsWorkload w : StreamsWorkload.values()) {
            double rocks = median(results, w, StreamsEngine.ROCKSDB);
            for (StreamsEngine e : StreamsEngine.values()) {
                List<StreamsResult> rs = of(results, w, e);
                if (rs.isEmpty()) {
                    continue;
                }
                StreamsResult last = rs.get(rs.size() - 1);
                double med = median(results, w, e);
                double min = rs.stream().mapToDouble(StreamsResult::eventsPerSecond).min().orElse(0);
                double max = rs.stream().mapToDouble(StreamsResult::eventsPerSecond).max().orElse(0);
                out.printf(Locale.ROOT, "%-10s %-11s %,12d %,14.0f %23s %11.4f %,12d %8s%n", w.cliName(), e.cliName(),
                        last.events(), med, String.format(Locale.ROOT, "%,.0f-%,.0f (%d)", min, max, rs.size()),
                        last.counters().dataBlockReadsPerLookup(), last.counters().filterNegatives(),
                        Double.isNaN(rocks) ? "-" : String.format(Locale.ROOT, "%.2fx", med / rocks));
            }
        }
        if (!restore.isEmpty()) {
            out.printf(Locale.ROOT, "%nchangelog restore of %,d records (batches of %d):%n", changelog, RestoreBench.BATCH);
            Double rocks = restore.get(StreamsEngine.ROCKSDB);
            restore.forEach((e, v) -> out.printf(Locale.ROOT, "  %-11s %,14.0f records/s %8s%n", e.cliName(), v,
                    rocks == null ? "-" : String.format(Locale.ROOT, "%.2fx", v / rocks)));
        }
    }

    static List<StreamsResult> of(List<StreamsResult> results, StreamsWorkload w, StreamsEngine e) {
        return results.stream().filter(r -> r.workload() == w && r.engine() == e).toList();
    }

    /** Median events/s of the rounds of {@code w} on {@code e}; NaN when it did not run. */
    static double median(List<StreamsResult> results, StreamsWorkload w, StreamsEngine e) {
        double[] v = of(results, w, e).stream().mapToDouble(StreamsResult::eventsPerSecond).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
