package io.bloomstore.cli.store;

import java.io.IOException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bloomstore stats}: per level the tables (files, table bytes, entries), their filters
 * (bytes, the bits per entry they actually spend, the policy's choice for new tables, the rate
 * in theory) and the filters' measured effect (disk accesses saved, positives, measured FPR,
 * probes and hit ratio, memory a skipped filter saves); then the totals: compactions, write
 * amplification, and the engine's counters (gets, tables consulted, filter answers, data-block
 * reads, block cache, flushes), each for this open and since the store was created. {@code --json}
 * prints the same with {@link StoreStats}'s names, the counters since creation under
 * {@code cumulative} with the same names.
 *
 * <p>Each {@code bloomstore} command is its own process and opens the store anew, so this
 * open's counters show only what opening the store did (recovery flushes); the counters since
 * creation add up what every earlier command and service did (saved at each flush and at close),
 * so the disk accesses a series of {@code get}s saved show there.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Show tables and filters per level, and the engine's counters.",
            "Counters are shown for this open (zero but for recovery) and since the store was created."})
public final class StatsCommand extends StoreCommand {

    @Option(names = "--json", description = "Print JSON with the statistics' API names.")
    private boolean json;

    @Override
    public Integer call() throws IOException {
        return StoreActions.stats(dataDir(), options(), keyspace(), json, out(), spec.commandLine().getErr());
    }
}
