package io.bloomstore.cli.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The rounds of a repeated run ({@code --repeat N}) reduced to one row per engine and workload:
 * median, minimum and maximum ops/s, and the median over rounds of the ratio to the
 * {@value Headline#BASELINE} engine's ops/s in the same round — a ratio of two figures measured
 * minutes apart rather than of two medians that may come from different rounds — and the same
 * against {@value Headline#RIBBON_BASELINE} (RocksDB with its Ribbon filter) when it ran, and against
 * every other engine of the run ({@link Row#medianRatioTo()}). With one round the median is the
 * round's figure.
 *
 * <p>Thread safety: immutable.
 */
public final class Summary {
    /**
     * One engine and workload over all rounds.
     *
     * @param medianRatioToBaseline NaN when the baseline did not run the workload
     * @param medianRatioToRibbon   the same against {@value Headline#RIBBON_BASELINE}; NaN when it did not run it
     * @param medianRatioTo         every other engine that ran the workload → the median over rounds of this
     *                              engine's ops/s over that engine's in the same round (for bloomstore's
     *                              rows: bloomstore / that engine), in run order
     */
    public record Row(String engine, Workload workload, int rounds, double medianOpsPerSec, double minOpsPerSec,
            double maxOpsPerSec, double medianRatioToBaseline, double medianRatioToRibbon,
            Map<String, Double> medianRatioTo) {
        public Row {
            medianRatioTo = Collections.unmodifiableMap(new LinkedHashMap<>(medianRatioTo));
        }
    }

    private final List<Row> rows = new ArrayList<>();

    public Summary(List<WorkloadResult> results) {
        Map<String, Map<Workload, List<WorkloadResult>>> byEngine = new LinkedHashMap<>();
        for (WorkloadResult r : results) {
            byEngine.computeIfAbsent(r.engine(), e -> new LinkedHashMap<>())
                    .computeIfAbsent(r.workload(), w -> new ArrayList<>()).add(r);
        }
        byEngine.forEach((engine, workloads) -> workloads.forEach((w, runs) -> {
            double[] ops = runs.stream().mapToDouble(WorkloadResult::opsPerSec).sorted().toArray();
            Map<String, Double> toOthers = new LinkedHashMap<>();
            for (String other : byEngine.keySet()) {
                double ratio = other.equals(engine) ? Double.NaN : medianRatio(results, runs, other);
                if (!Double.isNaN(ratio)) {
                    toOthers.put(other, ratio);
                }
            }
            rows.add(new Row(engine, w, runs.size(), median(ops), ops[0], ops[ops.length - 1],
                    medianRatio(results, runs, Headline.BASELINE), medianRatio(results, runs, Headline.RIBBON_BASELINE),
                    toOthers));
        }));
    }

    /** The median over {@code runs} of each run's ops/s over {@code baseline}'s in the same round and workload. */
    private static double medianRatio(List<WorkloadResult> results, List<WorkloadResult> runs, String baseline) {
        List<Double> ratios = new ArrayList<>();
        for (WorkloadResult r : runs) {
            for (WorkloadResult b : results) {
                if (b.engine().equals(baseline) && b.workload() == r.workload() && b.round() == r.round()
                        && b.opsPerSec() > 0) {
                    ratios.add(r.opsPerSec() / b.opsPerSec());
                }
            }
        }
        return median(ratios.stream().mapToDouble(Double::doubleValue).toArray());
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    /** The row of {@code engine} and {@code workload}, or null. */
    public Row find(String engine, Workload workload) {
        for (Row r : rows) {
            if (r.engine().equals(engine) && r.workload() == workload) {
                return r;
            }
        }
        return null;
    }

    /** The median over rounds of {@code metric} for the engine's runs of the workload; NaN when none. */
    static double median(List<WorkloadResult> results, String engine, Workload workload,
            ToDoubleFunction<WorkloadResult> metric) {
        return median(results.stream().filter(r -> r.engine().equals(engine) && r.workload() == workload)
                .mapToDouble(metric).toArray());
    }

    /** The median (mean of the middle two for an even count); NaN for none. */
    /** {@link #median(double[])} of a list. */
    public static double median(java.util.List<Double> values) {
        return median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }
}
