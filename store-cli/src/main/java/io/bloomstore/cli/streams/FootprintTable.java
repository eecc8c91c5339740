package io.bloomstore.cli.streams;

import io.bloomstore.cli.bench.Summary;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The footprint of {@code bench-streams --broker --footprint}: per application and engine, the
 * medians over the rounds of an instance's events/s, OS threads, resident set and heap in use
 * ({@link BrokerBench#footprint}); on BloomStore's row its ratios to RocksDB's.
 *
 * <p>Thread safety: stateless.
 */
final class FootprintTable {
    private FootprintTable() {
    }

    static void print(PrintWriter out, List<BrokerBench.Footprint> results) {
        out.printf(Locale.ROOT, "%nInstance footprint (an instance in a JVM of its own, after its last record; medians):%n");
        out.printf(Locale.ROOT, "%-15s %-11s %10s %8s %12s %9s %9s %9s%n", "application", "engine", "events/s",
                "threads", "resident MiB", "heap MiB", "e2e", "resident");
        for (BrokerWorkload w : BrokerWorkload.values()) {
            for (StreamsEngine e : StreamsEngine.values()) {
                if (of(results, w, e).isEmpty()) {
                    continue;
                }
                boolean ratios = e == StreamsEngine.BLOOMSTORE && !of(results, w, StreamsEngine.ROCKSDB).isEmpty();
                out.printf(Locale.ROOT, "%-15s %-11s %,10.0f %8.0f %12.1f %9.1f %9s %9s%n", w.cliName(), e.cliName(),
                        median(results, w, e, BrokerBench.Footprint::eventsPerSecond),
                        median(results, w, e, BrokerBench.Footprint::threads),
                        median(results, w, e, BrokerBench.Footprint::residentMiB),
                        median(results, w, e, BrokerBench.Footprint::heapMiB),
                        ratios ? String.format(Locale.ROOT, "%.2fx", ratio(results, w, BrokerBench.Footprint::eventsPerSecond)) : "",
                        ratios ? String.format(Locale.ROOT, "%.2fx", ratio(results, w, BrokerBench.Footprint::residentMiB)) : "");
            }
        }
        out.println("ratios: bloomstore/rocksdb events/s (above 1: faster) and resident set (below 1: smaller)");
    }

    /** The JSON rows and, per application with both engines, the medians and ratios. */
    static Map<String, Object> report(List<BrokerBench.Footprint> results) {
        Map<String, Object> root = new LinkedHashMap<>();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (BrokerBench.Footprint f : results) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("workload", f.workload().cliName());
            row.put("engine", f.engine().cliName());
            row.put("eventsPerSecond", f.eventsPerSecond());
            row.put("threads", f.threads());
            row.put("residentMiB", f.residentMiB());
            row.put("heapMiB", f.heapMiB());
            rows.add(row);
        }
        root.put("runs", rows);
        Map<String, Object> medians = new LinkedHashMap<>();
        for (BrokerWorkload w : BrokerWorkload.values()) {
            if (of(results, w, StreamsEngine.BLOOMSTORE).isEmpty() || of(results, w, StreamsEngine.ROCKSDB).isEmpty()) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            for (StreamsEngine e : StreamsEngine.values()) {
                m.put(e.cliName() + "EventsPerSecond", median(results, w, e, BrokerBench.Footprint::eventsPerSecond));
                m.put(e.cliName() + "Threads", median(results, w, e, BrokerBench.Footprint::threads));
                m.put(e.cliName() + "ResidentMiB", median(results, w, e, BrokerBench.Footprint::residentMiB));
                m.put(e.cliName() + "HeapMiB", median(results, w, e, BrokerBench.Footprint::heapMiB));
            }
            m.put("endToEndRatio", ratio(results, w, BrokerBench.Footprint::eventsPerSecond));
            m.put("residentRatio", ratio(results, w, BrokerBench.Footprint::residentMiB));
            medians.put(w.cliName(), m);
        }
        root.put("medians", medians);
        return root;
    }

    static List<BrokerBench.Footprint> of(List<BrokerBench.Footprint> results, BrokerWorkload w, StreamsEngine e) {
        return results.stream().filter(f -> f.workload() == w && f.engine() == e).toList();
    }

    static double median(List<BrokerBench.Footprint> results, BrokerWorkload w, StreamsEngine e,
                         ToDoubleFunction<BrokerBench.Footprint> figure) {
        return Summary.median(of(results, w, e).stream().mapToDouble(figure).toArray());
    }

    /** BloomStore's median over RocksDB's. */
    static double ratio(List<BrokerBench.Footprint> results, BrokerWorkload w, ToDoubleFunction<BrokerBench.Footprint> figure) {
        return median(results, w, StreamsEngine.BLOOMSTORE, figure) / median(results, w, StreamsEngine.ROCKSDB, figure);
    }
}
