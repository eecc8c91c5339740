package io.bloomstore.cli.family;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.bloomstore.cli.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore experiment range-filters}: the Grafite-style range filter against Rosetta (and
 * Bloom for point queries) at the same bits per key ({@link RangeFilterExperiment}), printed as a
 * table of measured false-positive rates beside each filter's theory, or as JSON. Query time is not
 * measured here: see the {@code RangeFilterBenchmark} JMH benchmark.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "range-filters", mixinStandardHelpOptions = true,
        description = {"Grafite-style range filter vs Rosetta (vs Bloom for points) at the same bits per key:",
            "false-positive rates of empty ranges, uniform and just past a stored key, against theory."})
public final class RangeFiltersCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--keys", defaultValue = "100000", description = "Stored 64-bit values (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--bits", split = ",", defaultValue = "10,16,22",
            description = "Bits per key of every filter (default ${DEFAULT-VALUE}).")
    int[] bits;

    @Option(names = "--lengths", split = ",", defaultValue = "1,16,256,4096",
            description = "Range lengths R, in values (default ${DEFAULT-VALUE}).")
    long[] lengths;

    @Option(names = "--queries", defaultValue = "20000",
            description = "Empty ranges per bits, query kind and length (default ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--range-bits", defaultValue = "16",
            description = "Both filters answer ranges of up to 2^N values (default ${DEFAULT-VALUE}, as the store).")
    int rangeBits;

    @Option(names = "--seed", defaultValue = "20261124", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() {
        RangeFilterExperiment.Result result;
        try {
            result = RangeFilterExperiment.run(new RangeFilterExperiment.Config(keys, seed, bits, lengths, queries,
                    rangeBits));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (RangeFilterExperiment.Row r : result.rows()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("bitsPerKey", r.bits());
                m.put("queries", r.queries());
                m.put("rangeLength", r.length());
                m.put("filter", r.filter());
                m.put("falsePositives", r.falsePositives());
                m.put("emptyRanges", r.asked());
                m.put("fpr", r.fpr());
                m.put("theory", r.theory());
                m.put("actualBitsPerKey", r.bitsPerKey());
                list.add(m);
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("keys", keys);
            doc.put("rangeBits", rangeBits);
            doc.put("queriesPerCell", queries);
            doc.put("seed", seed);
            doc.put("results", list);
            doc.put("rosettaSplits", result.rosettaSplits());
            out.println(Json.write(doc));
        } else {
            printTable(out, result);
        }
        out.flush();
        return 0;
    }

    private void printTable(PrintWriter out, RangeFilterExperiment.Result result) {
        out.printf(Locale.ROOT, "%,d values, ranges up to 2^%d, %,d empty ranges per cell, seed %d%n", keys,
                rangeBits, queries, seed);
        out.printf(Locale.ROOT, "%3s  %-10s %6s  %9s %9s  %9s %9s  %9s %9s%n", "B", "queries", "R", "grafite",
                "theory", "rosetta", "model", "bloom", "theory");
        List<RangeFilterExperiment.Row> rows = result.rows();
        for (int i = 0; i < rows.size(); ) {
            RangeFilterExperiment.Row g = rows.get(i);
            RangeFilterExperiment.Row r = rows.get(i + 1);
            boolean withBloom = i + 2 < rows.size() && rows.get(i + 2).filter().equals("bloom");
            RangeFilterExperiment.Row b = withBloom ? rows.get(i + 2) : null;
            out.printf(Locale.ROOT, "%3d  %-10s %6d  %9s %9s  %9s %9s  %9s %9s%n", g.bits(), g.queries(), g.length(),
                    pct(g.fpr()), pct(g.theory()), pct(r.fpr()), pct(r.theory()), b == null ? "" : pct(b.fpr()),
                    b == null ? "" : pct(b.theory()));
            i += withBloom ? 3 : 2;
        }
        for (String s : result.rosettaSplits()) {
            out.println("  " + s);
        }
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, v >= 0.1 ? "%.1f%%" : v >= 0.001 ? "%.3f%%" : "%.4f%%", 100 * v);
    }
}
