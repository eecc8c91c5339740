package io.bloomstore.cli.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The summary a run ends with: disk accesses the filters saved per engine, each engine's
 * throughput as a ratio to the baseline (RocksDB) per workload, and data-block reads per
 * missing lookup per engine — the numbers DESIGN.md's performance targets are stated in.
 *
 * <p>Thread safety: immutable after construction.
 */
public final class Headline {
    /** The engine every other one is compared with. */
    public static final String BASELINE = RocksDbEngine.NAME;

    private final List<WorkloadResult> results;
    private final List<String> engines = new ArrayList<>();

    public Headline(List<WorkloadResult> results) {
        this.results = List.copyOf(results);
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

    /** Filter negatives over all of the engine's workloads. */
    public long diskAccessesSaved(String engine) {
        return results.stream().filter(r -> r.engine().equals(engine)).mapToLong(WorkloadResult::diskAccessesSaved).sum();
    }

    /** The engine's ops/s divided by the baseline's in the same workload, if both ran it. */
    public OptionalDouble ratioToBaseline(String engine, Workload workload) {
        WorkloadResult mine = find(engine, workload);
        WorkloadResult base = find(BASELINE, workload);
        if (mine == null || base == null || base.opsPerSec() == 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(mine.opsPerSec() / base.opsPerSec());
    }

    /** Data-block reads per lookup in readmissing, if the engine ran it. */
    public OptionalDouble readsPerMissingLookup(String engine) {
        WorkloadResult r = find(engine, Workload.READMISSING);
        return r == null ? OptionalDouble.empty() : OptionalDouble.of(r.dataBlockReadsPerOp());
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
        out.println("Disk accesses saved by filters (filter negatives, all workloads):");
        for (String e : engines) {
            out.printf(Locale.ROOT, "  %-22s %,d%n", e, diskAccessesSaved(e));
        }
        out.println("Data-block reads per missing lookup (readmissing):");
        for (String e : engines) {
            readsPerMissingLookup(e).ifPresent(v -> out.printf(Locale.ROOT, "  %-22s %.4f%n", e, v));
        }
        if (hasBaseline() && engines.size() > 1) {
            out.println("Throughput ratio to " + BASELINE + " (ops/s, higher is better):");
            ratios().forEach((engine, row) -> {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-22s", engine));
                row.forEach((w, v) -> line.append(String.format(Locale.ROOT, " %s %.2fx", w.cliName(), v)));
                out.println(line);
            });
        }
    }
}
