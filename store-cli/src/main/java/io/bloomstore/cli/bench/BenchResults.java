package io.bloomstore.cli.bench;

import java.util.List;

/**
 * Everything a benchmark run measured: the in-process workload results of every round, the
 * cold-start probes, the reopen probes and the closes after fills, each tagged with its round.
 *
 * <p>Thread safety: immutable.
 *
 * @param rounds  rounds run ({@code --repeat})
 * @param results one per engine, workload and round
 * @param cold    one per engine and round, for engines a child JVM can create; empty when not asked for
 * @param open    one per engine and round when the open workload was asked for
 * @param closes  one per engine, round and fill workload: the close right after the fill
 * @param time    per engine, where its wall-clock time went over all rounds
 * @param filters per engine and round that loaded a store for reads: its filters' bits per key and the
 *                load's write amplification
 */
public record BenchResults(int rounds, List<WorkloadResult> results, List<ColdResult> cold, List<OpenResult> open,
        List<CloseResult> closes, List<TimeSpent> time, List<LoadCost> filters) {
    public BenchResults {
        filters = List.copyOf(filters);
        results = List.copyOf(results);
        cold = List.copyOf(cold);
        open = List.copyOf(open);
        closes = List.copyOf(closes);
        time = List.copyOf(time);
    }
}
