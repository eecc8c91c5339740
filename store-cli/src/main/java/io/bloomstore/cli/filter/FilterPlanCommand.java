package io.bloomstore.cli.filter;

import java.io.PrintWriter;
import java.util.Locale;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore filter plan}: the Bloom filter calculator. Given n and one of a target
 * false-positive rate, a bit count or a bits-per-key budget, prints m, the optimal k, the
 * expected rate and the size.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Size a Bloom filter: bits, probes and expected false-positive rate for n keys.")
public final class FilterPlanCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Option(names = "--n", required = true, paramLabel = "N", description = "Number of keys.")
    private long n;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Sizing sizing;

    @Option(names = "--kind", defaultValue = "bloom", converter = FilterKindConverter.class,
            completionCandidates = FilterKindConverter.class, paramLabel = "KIND",
            description = "bloom (standard) or blocked (one cache line per key). Default: ${DEFAULT-VALUE}.")
    private FilterKind kind;

    @Option(names = "--json", description = "Print one JSON object.")
    private boolean json;

    static final class Sizing {
        @Option(names = "--fpr", paramLabel = "P", description = "Target false-positive rate, for example 0.01.")
        Double fpr;

        @Option(names = "--m", paramLabel = "BITS", description = "Bits of filter memory.")
        Long m;

        @Option(names = "--bits-per-key", paramLabel = "B", description = "Bits of filter memory per key.")
        Double bitsPerKey;
    }

    @Override
    public void run() {
        if (n < 1) {
            throw new IllegalArgumentException("--n must be positive, got " + n);
        }
        FilterPlan plan;
        if (sizing.fpr != null) {
            plan = FilterPlan.forRate(kind, n, sizing.fpr);
        } else if (sizing.m != null) {
            plan = FilterPlan.forBits(kind, n, sizing.m);
        } else {
            plan = FilterPlan.forBitsPerKey(kind, n, sizing.bitsPerKey);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(plan.toJson()));
        } else {
            out.printf(Locale.ROOT, "%s filter for %s keys%n", kind.cliName(), Units.count(plan.n()));
            out.printf(Locale.ROOT, "  m (bits)       %s%n", Units.count(plan.m()));
            out.printf(Locale.ROOT, "  k (probes)     %d%n", plan.k());
            out.printf(Locale.ROOT, "  bits per key   %.3f%n", plan.bitsPerKey());
            out.printf(Locale.ROOT, "  expected FPR   %s (%.3g)%n", Units.percent(plan.fpr()), plan.fpr());
            out.printf(Locale.ROOT, "  size           %s (%s payload bytes, %s as a file)%n", Units.bytes(plan.bytes()),
                    Units.count(plan.bytes()), Units.count(plan.fileBytes()));
        }
        out.flush();
    }
}
