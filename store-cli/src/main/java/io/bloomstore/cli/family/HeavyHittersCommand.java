package io.bloomstore.cli.family;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore experiment heavy-hitters}: the seminar's comparison of the selective
 * counting Bloom filter with Count-Min heavy hitters ({@link HeavyHittersExperiment}), printed
 * as a table of TP/FP/FN/TN, rates and memory, or as JSON.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "heavy-hitters", mixinStandardHelpOptions = true,
        description = "Selective counting Bloom filter vs Count-Min heavy hitters on an IP stream (seminar, seed 001).")
public final class HeavyHittersCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--ips", defaultValue = "30000", description = "Addresses in the stream and in the query list (default ${DEFAULT-VALUE}).")
    int ips;

    @Option(names = "--alpha", split = ",", defaultValue = "1,5,100", description = "Cost ratios W_FN/W_FP (default ${DEFAULT-VALUE}).")
    double[] alphas;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--heavy", defaultValue = "50", description = "Distinct repeated addresses making up 20%% of the stream (default ${DEFAULT-VALUE}).")
    int heavy;

    @Option(names = "--hashes", defaultValue = "3", description = "Probes of the selective counting filter (default ${DEFAULT-VALUE}).")
    int hashes;

    @Option(names = "--prior", defaultValue = "0.2", description = "A-priori probability that a queried address is repeated (default ${DEFAULT-VALUE}).")
    double prior;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (hashes < 1 || hashes > 64 || !(prior >= 0 && prior <= 1)) {
            throw new ParameterException(spec.commandLine(), "--hashes must be 1..64 and --prior in [0, 1]");
        }
        for (double a : alphas) {
            if (!(a > 0) || Double.isInfinite(a)) {
                throw new ParameterException(spec.commandLine(), "--alpha values must be positive, got " + a);
            }
        }
        List<HeavyHittersExperiment.Row> rows;
        try {
            rows = HeavyHittersExperiment.run(HeavyHittersExperiment.Config.seminar(ips, heavy, seed, hashes, prior),
                    alphas);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (HeavyHittersExperiment.Row r : rows) {
                HeavyHittersExperiment.Confusion c = r.confusion();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("structure", r.structure());
                m.put("alpha", r.alpha());
                m.put("tp", c.tp());
                m.put("fp", c.fp());
                m.put("fn", c.fn());
                m.put("tn", c.tn());
                m.put("tpr", c.tpr());
                m.put("fpr", c.fpr());
                m.put("fnr", c.fnr());
                m.put("tnr", c.tnr());
                m.put("memoryBits", r.memoryBits());
                m.put("detail", r.detail());
                list.add(m);
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("ips", ips);
            doc.put("heavy", heavy);
            doc.put("seed", seed);
            doc.put("results", list);
            out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc));
        } else {
            out.printf("%d addresses (20%% = %d heavy addresses repeated), %d queries, seed %d%n", ips, heavy, ips, seed);
            out.printf("%-26s %6s %7s %7s %7s %7s %7s %7s %7s %7s %9s%n", "structure", "alpha", "TP", "FP", "FN", "TN",
                    "TPR", "FPR", "FNR", "TNR", "bits");
            for (HeavyHittersExperiment.Row r : rows) {
                HeavyHittersExperiment.Confusion c = r.confusion();
                out.printf("%-26s %6s %7d %7d %7d %7d %7.4f %7.4f %7.4f %7.4f %,9d%n", r.structure(),
                        fmt(r.alpha()), c.tp(), c.fp(), c.fn(), c.tn(), c.tpr(), c.fpr(), c.fnr(), c.tnr(),
                        r.memoryBits());
            }
            for (HeavyHittersExperiment.Row r : rows) {
                if (r.alpha() == alphas[0]) {
                    out.printf("  %s: %s%n", r.structure(), r.detail());
                }
            }
        }
        out.flush();
        return 0;
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
