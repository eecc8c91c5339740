package io.bloomstore.cli.streams;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The console table of {@code bench-streams --broker}: per application and engine the medians
 * over the rounds of end-to-end events/s, store ns per lookup ({@code get} or {@code fetch}) and
 * per {@code put} from Kafka's store metrics, and restore time; on BloomStore's row its ratios to
 * RocksDB: events/s (higher is better), ns per lookup (lower is better) and restore speed
 * (RocksDB's restore time over BloomStore's, higher is better).
 *
 * <p>Thread safety: stateless.
 */
final class BrokerTable {
    private BrokerTable() {
    }

    static void print(PrintWriter out, List<BrokerResult> results) {
        out.printf(Locale.ROOT, "%n%-15s %-11s %9s %10s %15s %9s %12s %11s %9s %9s %9s%n", "application", "engine",
                "events", "events/s", "lookup ns/op", "put ns/op", "restore ms", "restored", "e2e", "lookup", "restore");
        for (BrokerWorkload w : BrokerWorkload.values()) {
            for (StreamsEngine e : StreamsEngine.values()) {
                List<BrokerResult> rs = of(results, w, e);
                if (rs.isEmpty()) {
                    continue;
                }
                boolean ratios = e == StreamsEngine.BLOOMSTORE && !of(results, w, StreamsEngine.ROCKSDB).isEmpty();
                out.printf(Locale.ROOT, "%-15s %-11s %,9d %,10.0f %15s %,9.0f %,12.0f %,11d %9s %9s %9s%n", w.cliName(),
                        e.cliName(), rs.get(0).events(), median(results, w, e, BrokerResult::eventsPerSecond),
                        String.format(Locale.ROOT, "%s %,.0f", w.lookupOperation(), lookupNanos(results, w, e)),
                        median(results, w, e, r -> r.nanos("put")), restoreMillis(results, w, e),
                        rs.get(rs.size() - 1).restored(),
                        ratios ? ratio(endToEndRatio(results, w)) : "", ratios ? ratio(lookupRatio(results, w)) : "",
                        ratios ? ratio(restoreRatio(results, w)) : "");
            }
        }
        out.println("ratios: bloomstore/rocksdb events/s and ns per lookup; restore speed = rocksdb's time / bloomstore's");
    }

    static double lookupNanos(List<BrokerResult> results, BrokerWorkload w, StreamsEngine e) {
        return median(results, w, e, r -> r.nanos(w.lookupOperation()));
    }

    static double restoreMillis(List<BrokerResult> results, BrokerWorkload w, StreamsEngine e) {
        return median(results, w, e, r -> r.restoreNanos() > 0 ? r.restoreNanos() / 1e6 : Double.NaN);
    }

    static double endToEndRatio(List<BrokerResult> results, BrokerWorkload w) {
        return median(results, w, StreamsEngine.BLOOMSTORE, BrokerResult::eventsPerSecond)
                / median(results, w, StreamsEngine.ROCKSDB, BrokerResult::eventsPerSecond);
    }

    static double lookupRatio(List<BrokerResult> results, BrokerWorkload w) {
        return lookupNanos(results, w, StreamsEngine.BLOOMSTORE) / lookupNanos(results, w, StreamsEngine.ROCKSDB);
    }

    static double restoreRatio(List<BrokerResult> results, BrokerWorkload w) {
        return restoreMillis(results, w, StreamsEngine.ROCKSDB) / restoreMillis(results, w, StreamsEngine.BLOOMSTORE);
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.2fx", r);
    }

    static List<BrokerResult> of(List<BrokerResult> results, BrokerWorkload w, StreamsEngine e) {
        return results.stream().filter(r -> r.workload() == w && r.engine() == e).toList();
    }

    /** Median of {@code f} over the rounds of {@code w} on {@code e}, NaN values left out; NaN if none. */
    static double median(List<BrokerResult> results, BrokerWorkload w, StreamsEngine e, ToDoubleFunction<BrokerResult> f) {
        double[] v = of(results, w, e).stream().mapToDouble(f).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
