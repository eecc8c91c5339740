package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's own counters on the simulated engine: with filters, a missing lookup reads
 * about FPR × (tables consulted) data blocks; without, one per table consulted.
 * Statistical checks: seed {@value #SEED}, tolerance 25% of the expectation (about six
 * standard deviations for the 80,000 filter checks of a run).
 */
class BenchRunnerTest {
    private static final long SEED = 7;
    private static final int KEYS = 20_000;

    @TempDir
    Path dir;

    /** 20,000 keys in about four tables of 5,000, all spanning the key range (random fill). */
    static BenchConfig smallConfig() {
        return new BenchConfig(KEYS, 16, 100, 1, 20_000, 0, 10, FilterKind.BLOOM, 1 << 20,
                KEYS / 4 * 116L, BenchConfig.Compression.LZ4, 0.5, 10, SEED);
    }

    private List<WorkloadResult> run(String engine, BenchConfig config, Workload... workloads) throws Exception {
        System.out.println("BenchRunnerTest seed " + config.seed());
        return new BenchRunner(config, SimulatedEngine.factory(), null).run(List.of(engine), List.of(workloads), dir);
    }

    private static WorkloadResult find(List<WorkloadResult> results, Workload w) {
        return results.stream().filter(r -> r.workload() == w).findFirst().orElseThrow();
    }

    @Test
    void missingLookupsWithFiltersReadAboutFprTimesTablesBlocks() throws Exception {
        List<WorkloadResult> results = run("sim", smallConfig(), Workload.FILLRANDOM, Workload.READMISSING);
        WorkloadResult missing = find(results, Workload.READMISSING);
        double fpr = missing.counters().configuredFpr();
        double tables = missing.tablesConsultedPerOp();
        assertTrue(tables >= 3.5 && tables <= 5, "tables consulted per lookup: " + tables);
        double expected = fpr * tables;
        assertEquals(expected, missing.dataBlockReadsPerOp(), 0.25 * expected,
                "data-block reads per missing lookup vs FPR x tables");
        assertEquals(fpr, missing.measuredFpr(), 0.25 * fpr, "measured vs configured FPR");
        assertEquals(0, missing.found());
        long checks = missing.counters().tablesConsulted();
        assertEquals(checks - missing.counters().dataBlockReads(), missing.diskAccessesSaved());
    }

    @Test
    void missingLookupsWithoutFiltersReadEveryTableConsulted() throws Exception {
        List<WorkloadResult> results = run("sim-nofilter", smallConfig(), Workload.FILLRANDOM, Workload.READMISSING);
        WorkloadResult missing = find(results, Workload.READMISSING);
        assertTrue(missing.tablesConsultedPerOp() >= 1);
        assertTrue(missing.dataBlockReadsPerOp() >= missing.tablesConsultedPerOp(),
                missing.dataBlockReadsPerOp() + " reads per op for " + missing.tablesConsultedPerOp() + " tables");
        assertEquals(0, missing.diskAccessesSaved());
        assertTrue(Double.isNaN(missing.measuredFpr()));
    }

    @Test
    void readWorkloadsFindWhatTheyShould() throws Exception {
        BenchConfig config = smallConfig();
        List<WorkloadResult> results = run("sim", config, Workload.values());
        assertEquals(Workload.values().length, results.size());
        for (Workload w : Workload.values()) {
            WorkloadResult r = find(results, w);
            long expectedOps = w.isFill() ? config.keys() : config.reads();
            assertEquals(expectedOps, r.ops(), w.cliName());
            assertTrue(r.opsPerSec() > 0 && r.p50Micros() <= r.p99Micros() && r.p99Micros() <= r.p999Micros(), w.cliName());
        }
        assertEquals(config.reads(), find(results, Workload.READRANDOM).found());
        assertEquals(config.reads(), find(results, Workload.READWHILEWRITING).found());
        assertEquals(config.reads(), find(results, Workload.SEEKRANDOM).found());
        double mixedFound = (double) find(results, Workload.READMIXED).found() / config.reads();
        assertEquals(0.5, mixedFound, 0.03, "fraction found in readmixed");
    }

    @Test
    void readsWithoutAFillLoadTheStoreFirstAndThreadsShareTheOps() throws Exception {
        BenchConfig base = smallConfig();
        BenchConfig config = new BenchConfig(base.keys(), base.keySize(), base.valueSize(), 3, 10_001, 0,
                base.bitsPerKey(), base.filterKind(), base.blockCacheBytes(), base.memtableBytes(),
                base.compression(), base.missingFraction(), base.scanLength(), base.seed());
        List<WorkloadResult> results = run("sim", config, Workload.READRANDOM, Workload.READWHILEWRITING);
        assertEquals(2, results.size());
        for (WorkloadResult r : results) {
            assertEquals(10_001, r.ops());
            assertEquals(10_001, r.found());
        }
    }

    @Test
    void sameSeedSameWork() throws Exception {
        WorkloadResult a = find(run("sim", smallConfig(), Workload.FILLRANDOM, Workload.READMIXED), Workload.READMIXED);
        WorkloadResult b = find(run("sim", smallConfig(), Workload.FILLRANDOM, Workload.READMIXED), Workload.READMIXED);
        assertEquals(a.counters(), b.counters());
        assertEquals(a.found(), b.found());
    }

    @Test
    void warmUpIsUnmeasuredAndLeavesNothingBehind() throws Exception {
        WorkloadResult cold = find(run("sim", smallConfig(), Workload.FILLRANDOM, Workload.READMIXED), Workload.READMIXED);
        List<WorkloadResult> results = new BenchRunner(smallConfig(), SimulatedEngine.factory(), null, 5_000)
                .run(List.of("sim"), List.of(Workload.FILLRANDOM, Workload.READMIXED), dir);
        WorkloadResult warm = find(results, Workload.READMIXED);
        assertEquals(2, results.size());
        assertEquals(cold.counters(), warm.counters(), "the warm-up's operations are not counted");
        assertEquals(cold.found(), warm.found());
        assertEquals(smallConfig().keys(), find(results, Workload.FILLRANDOM).ops());
        assertFalse(Files.exists(dir.resolve("sim" + BenchRunner.WARM_UP_SUFFIX)), "scratch directory deleted");
    }
}
