package io.bloomstore.cli.family;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.paradox.BloomParadox;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore filter paradox}: the Bloom paradox threshold for a cost ratio and a filter
 * size, explained in one line ({@link BloomParadox}).
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "paradox", mixinStandardHelpOptions = true,
        description = "The a-priori probability below which a Bloom filter costs more than it saves.")
public final class FilterParadoxCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--alpha", required = true, description = "Cost of a false negative over a false positive (W_FN / W_FP).")
    double alpha;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Size size;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    /** Either bits per key or m and n. */
    static final class Size {
        @Option(names = "--bits-per-key", description = "Bits per key m/n.")
        Double bitsPerKey;

        @ArgGroup(exclusive = false)
        Counts counts;
    }

    /** Filter bits and keys. */
    static final class Counts {
        @Option(names = "--m", required = true, description = "Bits in the filter.")
        long m;

        @Option(names = "--n", required = true, description = "Keys in the filter.")
        long n;
    }

    @Override
    public Integer call() throws Exception {
        double bpk;
        if (size.bitsPerKey != null) {
            bpk = size.bitsPerKey;
        } else {
            if (size.counts.m < 1 || size.counts.n < 1) {
                throw new ParameterException(spec.commandLine(), "--m and --n must be positive");
            }
            bpk = (double) size.counts.m / size.counts.n;
        }
        if (!(alpha > 0) || Double.isInfinite(alpha) || !(bpk > 0) || Double.isInfinite(bpk)) {
            throw new ParameterException(spec.commandLine(), "--alpha and the bits per key must be positive numbers");
        }
        double threshold = BloomParadox.threshold(alpha, bpk);
        double fpr = BloomMath.fprAtOptimalK(bpk);
        String explanation = String.format(
                "The filter pays only if at least %.4g of lookups (1 in %,.0f) are for keys in the set: below that, "
                        + "a positive (false %.3g%% of the time) is more likely wrong than worth a miss that costs %s false positives.",
                threshold, 1 / threshold, fpr * 100, fmt(alpha));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("alpha", alpha);
            m.put("bitsPerKey", bpk);
            if (size.counts != null) {
                m.put("m", size.counts.m);
                m.put("n", size.counts.n);
            }
            m.put("falsePositiveRate", fpr);
            m.put("threshold", threshold);
            m.put("presentPosterior", BloomParadox.presentThreshold(alpha));
            m.put("explanation", explanation);
            out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(m));
        } else {
            out.printf("alpha %s, %.3f bits per key: paradox threshold P* = 1/(1 + alpha*2^(ln2*m/n)) = %.6g%n",
                    fmt(alpha), bpk, threshold);
            out.println(explanation);
        }
        out.flush();
        return 0;
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
