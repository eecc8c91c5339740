package io.bloomstore.cli.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;

/**
 * The summary a run ends with: disk accesses the filters saved per engine, each engine's
 * throughput as a ratio to the baseline (RocksDB) per workload, and data-block reads per
 * missing lookup per engine — the numbers DESIGN.md's performance targets are stated in.
 * With several rounds each figure is the median over rounds, and a ratio is the median of the
 * per-round ratios ({@link Summary}).
 *
 * <p>Thread safety: immutable after construction.
 */
public final class Headline {
    /** The engine every other one is compared with. */
    public static final String BASELINE = RocksDbEngine.NAME;
    /** The second baseline, RocksDB at its best for missing keys: with its Ribbon filter. */
    public static final String RIBBON_BASELINE = RocksDbEngine.NAME_RIBBON;

    private final List<WorkloadResult> results;
    private final Summary summary;
    private final List<String> engines = new ArrayList<>();
    private final int rounds;

    public Headline(List<WorkloadResult> results) {
        this.results = List.copyOf(results);
        this.summary = new Summary(results);
        this.rounds = (int) results.stream().mapToInt(WorkloadResult::round).distinct().count();
        for (WorkloadResult r : results) {
            if (!engines.contains(r.engine())) {
                engines.add(r.engine());
            }
        }
    }

    public List<String> engines() {
        return List.copyOf(engines);
    }

    public boolean hasBaseline() {
        return engines.contains(BASELINE);
    }

    /** Rounds the results come from. */
    public int rounds() {
        return rounds;
    }

    public Summary summary() {
        return summary;
    }

    /** Whether the engine keeps table and filter counters ({@link EngineCounters#kept()}): the peers do not. */
    public boolean keepsCounters(String engine) {
        return results.stream().anyMatch(r -> r.engine().equals(engine) && r.counters().kept());
    }

    /** Filter negatives over all of the engine's workloads of a round (the median round's with several). */
    public long diskAccessesSaved(String engine) {
        List<Integer> roundsRun = results.stream().filter(r -> r.engine().equals(engine))
                .map(WorkloadResult::round).distinct().toList();
        double[] perRound = roundsRun.stream().mapToDouble(round -> results.stream()
                .filter(r -> r.engine().equals(engine) && r.round() == round)
                .mapToLong(WorkloadResult::diskAccessesSaved).sum()).toArray();
        return perRound.length == 0 ? 0 : Math.round(Summary.median(perRound));
    }

    /** The median over rounds of the engine's ops/s divided by the baseline's in the same round, if both ran it. */
    public OptionalDouble ratioToBaseline(String engine, Workload workload) {
        Summary.Row row = summary.find(engine, workload);
        if (row == null || Double.isNaN(row.medianRatioToBaseline())) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(row.medianRatioToBaseline());
    }

    /** The median over rounds of the engine's ops/s over {@link #RIBBON_BASELINE}'s in the same round, if both ran it. */
    public OptionalDouble ratioToRibbon(String engine, Workload workload) {
        Summary.Row row = summary.find(engine, workload);
        if (row == null || Double.isNaN(row.medianRatioToRibbon())) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(row.medianRatioToRibbon());
    }

    /** Data-block reads per lookup in readmissing (median over rounds), if the engine ran it. */
    public OptionalDouble readsPerMissingLookup(String engine) {
        double v = Summary.median(results, engine, Workload.READMISSING, WorkloadResult::dataBlockReadsPerOp);
        return Double.isNaN(v) ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    /** The median over rounds of {@code metric} for the engine and workload; NaN when it did not run. */
    public double median(String engine, Workload workload, ToDoubleFunction<WorkloadResult> metric) {
        return Summary.median(results, engine, workload, metric);
    }

    /** Ratios per workload for every engine but the baseline, in run order. */
    public Map<String, Map<Workload, Double>> ratios() {
        Map<String, Map<Workload, Double>> out = new LinkedHashMap<>();
        for (String e : engines) {
            if (e.equals(BASELINE)) {
                continue;
            }
            Map<Workload, Double> row = new LinkedHashMap<>();
            for (Workload w : Workload.values()) {
                ratioToBaseline(e, w).ifPresent(v -> row.put(w, v));
            }
            out.put(e, row);
        }
        return out;
    }

    /**
     * BloomStore against every other engine, workloads as rows and engines as columns: the median
     * of the per-round ratios bloomstore / that engine ({@link Summary.Row#medianRatioTo()}); "n/a"
     * where the engine did not run the workload.
     */
    void printRatiosToEveryEngine(PrintWriter out) {
        String ours = BloomStoreEngine.NAME;
        List<String> others = engines.stream().filter(e -> !e.equals(ours)).toList();
        if (!engines.contains(ours) || others.isEmpty()) {
            return;
        }
        out.println(ours + " / each engine (ops/s, above 1: " + ours + " faster"
                + (rounds > 1 ? "; median of the " + rounds + " per-round ratios" : "") + "):");
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "  %-18s", "workload"));
        others.forEach(e -> header.append(String.format(Locale.ROOT, " %14s", e)));
        out.println(header);
        for (Workload w : Workload.values()) {
            Summary.Row row = summary.find(ours, w);
            if (row == null) {
                continue;
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-18s", w.cliName()));
            for (String e : others) {
                Double r = row.medianRatioTo().get(e);
                line.append(String.format(Locale.ROOT, " %14s", r == null ? "n/a" : String.format(Locale.ROOT, "%.2fx", r)));
            }
            out.println(line);
        }
    }

    /** The engine's result for the workload in the first round it ran, or null. */
    public WorkloadResult find(String engine, Workload workload) {
        for (WorkloadResult r : results) {
            if (r.engine().equals(engine) && r.workload() == workload) {
                return r;
            }
        }
        return null;
    }

    public void print(PrintWriter out) {
        out.println();
        String of = rounds > 1 ? ", median of " + rounds + " rounds" : "";
        out.println("Disk accesses saved by filters (filter negatives, all workloads" + of + "):");
        for (String e : engines) {
            if (keepsCounters(e)) {
                out.printf(Locale.ROOT, "  %-22s %,d%n", e, diskAccessesSaved(e));
            }
        }
        out.println("Data-block reads per missing lookup (readmissing" + of + "):");
        for (String e : engines) {
            readsPerMissingLookup(e).ifPresent(v -> out.printf(Locale.ROOT, "  %-22s %.4f%n", e, v));
        }
        if (hasBaseline() && engines.size() > 1) {
            out.println("Throughput ratio to " + BASELINE + " (ops/s, higher is better"
                    + (rounds > 1 ? "; median of the " + rounds + " per-round ratios" : "") + "):");
            ratios().forEach((engine, row) -> {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-22s", engine));
                row.forEach((w, v) -> line.append(String.format(Locale.ROOT, " %s %.2fx", w.cliName(), v)));
                out.println(line);
            });
        }
        printRatiosToEveryEngine(out);
        if (engines.contains(RIBBON_BASELINE) && engines.size() > 1) {
            out.println("Throughput ratio to " + RIBBON_BASELINE + " (ops/s, higher is better"
                    + (rounds > 1 ? "; median of the " + rounds + " per-round ratios" : "") + "):");
            for (String e : engines) {
                if (e.equals(RIBBON_BASELINE)) {
                    continue;
                }
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-22s", e));
                for (Workload w : Workload.values()) {
                    ratioToRibbon(e, w).ifPresent(v -> line.append(String.format(Locale.ROOT, " %s %.2fx",
                            w.cliName(), v)));
                }
                out.println(line);
            }
        }
    }
}
