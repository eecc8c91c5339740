package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
                KEYS / 4 * 116L, BenchConfig.Compression.LZ4, 0.5, 10, SEED, BenchConfig.Distribution.UNIFORM);
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
        List<Workload> all = Arrays.stream(Workload.values()).filter(Workload::isDefault).toList();
        List<WorkloadResult> results = run("sim", config, all.toArray(new Workload[0]));
        assertEquals(all.size(), results.size());
        for (Workload w : all) {
            WorkloadResult r = find(results, w);
            long expectedOps = w.isFill() ? config.keys() : config.reads();
            assertEquals(expectedOps, r.ops(), w.cliName());
            assertTrue(r.opsPerSec() > 0 && r.p50Micros() <= r.p99Micros() && r.p99Micros() <= r.p999Micros(), w.cliName());
        }
        assertEquals(config.reads(), find(results, Workload.UPDATERANDOM).found(), "updates read existing keys");
        assertTrue(find(results, Workload.READWHILEWRITING).writerOps() > 0, "the writer's puts are counted");
        assertEquals(0, find(results, Workload.READRANDOM).writerOps());
        assertEquals(config.reads(), find(results, Workload.READRANDOM).found());
        assertEquals(config.reads(), find(results, Workload.READWHILEWRITING).found());
        assertEquals(config.reads(), find(results, Workload.SEEKRANDOM).found());
        double mixedFound = (double) find(results, Workload.READMIXED).found() / config.reads();
        assertEquals(0.5, mixedFound, 0.03, "fraction found in readmixed");
    }

    @Test
    void aWriterRateHoldsReadWhileWritingsWriterToIt() throws Exception {
        BenchConfig config = smallConfig().withReads(200_000);
        double rate = 2_000;
        List<WorkloadResult> paced = new BenchRunner(config, SimulatedEngine.factory(), null).withWriterRate(rate)
                .run(List.of("sim"), List.of(Workload.READWHILEWRITING), dir);
        WorkloadResult r = find(paced, Workload.READWHILEWRITING);
        // The first put is not paced and a late writer may catch up on one millisecond's puts.
        long allowed = (long) (rate * r.seconds()) + 1 + (long) (rate * WritePacer.MAX_LAG_NANOS / 1e9) + 1;
        assertTrue(r.writerOps() >= 1 && r.writerOps() <= allowed,
                r.writerOps() + " puts in " + r.seconds() + " s at " + rate + " puts/s");
        assertEquals(config.reads(), r.found(), "the readers still find every key");
    }

    @Test
    void readWhileWritingsWarmUpRunsItsWriterToo() throws Exception {
        Map<Path, List<SimulatedEngine.Table>> disk = new ConcurrentHashMap<>();
        Map<String, Long> putsByDirectory = new ConcurrentHashMap<>();
        EngineFactory factory = new EngineFactory().register("sim", () -> {
            SimulatedEngine engine = new SimulatedEngine(true, disk);
            String[] directory = new String[1];
            return new Forwarding(engine) {
                @Override
                public void open(Path d, BenchConfig config) throws IOException {
                    directory[0] = d.getFileName().toString();
                    super.open(d, config);
                }

                @Override
                public void put(byte[] key, byte[] value) throws IOException {
                    putsByDirectory.merge(directory[0], 1L, Long::sum);
                    super.put(key, value);
                }
            };
        });
        int warmUpKeys = 2_000;
        new BenchRunner(smallConfig().withReads(2_000), factory, null, warmUpKeys)
                .run(List.of("sim"), List.of(Workload.READWHILEWRITING), dir);
        long warmUpPuts = putsByDirectory.get("sim" + BenchRunner.WARM_UP_SUFFIX);
        assertTrue(warmUpPuts > warmUpKeys, "the warm-up's puts: its fill's " + warmUpKeys + " and the writer's: "
                + warmUpPuts);
    }

    @Test
    void readsWithoutAFillLoadTheStoreFirstAndThreadsShareTheOps() throws Exception {
        BenchConfig base = smallConfig();
        BenchConfig config = new BenchConfig(base.keys(), base.keySize(), base.valueSize(), 3, 10_001, 0,
                base.bitsPerKey(), base.filterKind(), base.blockCacheBytes(), base.memtableBytes(),
                base.compression(), base.missingFraction(), base.scanLength(), base.seed(), base.distribution());
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

    @Test
    void roundsRotateTheEngineOrderAndSummariseMedians() throws Exception {
        List<String> started = new ArrayList<>();
        Map<Path, List<SimulatedEngine.Table>> disk = new ConcurrentHashMap<>();
        EngineFactory factory = new EngineFactory()
                .register("a", () -> recording("a", started, disk))
                .register("b", () -> recording("b", started, disk))
                .register("rocksdb", () -> recording("rocksdb", started, disk));
        BenchResults run = new BenchRunner(smallConfig().withReads(2_000), factory, null)
                .run(List.of("a", "b", "rocksdb"), List.of(Workload.FILLRANDOM, Workload.READRANDOM), dir, 3);
        assertEquals(List.of("a", "b", "rocksdb", "b", "rocksdb", "a", "rocksdb", "a", "b"), started,
                "round r starts at engine r");
        assertEquals(3, run.rounds());
        assertEquals(3 * 3 * 2, run.results().size());
        Summary summary = new Summary(run.results());
        for (String engine : List.of("a", "b", "rocksdb")) {
            Summary.Row row = summary.find(engine, Workload.READRANDOM);
            assertEquals(3, row.rounds());
            assertTrue(row.minOpsPerSec() <= row.medianOpsPerSec() && row.medianOpsPerSec() <= row.maxOpsPerSec());
            double[] ratios = new double[3];
            for (int round = 0; round < 3; round++) {
                ratios[round] = opsPerSec(run, engine, round) / opsPerSec(run, "rocksdb", round);
            }
            Arrays.sort(ratios);
            assertEquals(ratios[1], row.medianRatioToBaseline(), 1e-12, "median of the per-round ratios");
            for (String other : List.of("a", "b", "rocksdb")) {
                if (other.equals(engine)) {
                    assertFalse(row.medianRatioTo().containsKey(engine), "no ratio to itself");
                    continue;
                }
                double[] to = new double[3];
                for (int round = 0; round < 3; round++) {
                    to[round] = opsPerSec(run, engine, round) / opsPerSec(run, other, round);
                }
                Arrays.sort(to);
                assertEquals(to[1], row.medianRatioTo().get(other), 1e-12, engine + " / " + other);
            }
        }
        assertEquals(1.0, summary.find("rocksdb", Workload.READRANDOM).medianRatioToBaseline(), 1e-12);
        assertEquals(3 * 3, run.closes().size(), "one timed close per engine, round and fill");
        for (CloseResult c : run.closes()) {
            assertEquals(Workload.FILLRANDOM, c.after());
            assertTrue(c.millis() >= 0, c.toString());
        }
        List<CloseSummary> closes = CloseSummary.of(run.closes());
        assertEquals(3, closes.size());
        for (CloseSummary c : closes) {
            assertEquals(3, c.rounds());
            assertTrue(c.medianMillis() <= c.maxMillis(), c.toString());
        }
    }

    @Test
    void closeSummaryTakesMedianAndMaxPerEngineAndFill() {
        List<CloseResult> closes = List.of(
                new CloseResult("x", 0, Workload.FILLSEQ, 5), new CloseResult("x", 1, Workload.FILLSEQ, 1),
                new CloseResult("x", 2, Workload.FILLSEQ, 90), new CloseResult("x", 0, Workload.FILLRANDOM, 3),
                new CloseResult("x", 1, Workload.FILLRANDOM, 7), new CloseResult("y", 0, Workload.FILLSEQ, 2));
        List<CloseSummary> s = CloseSummary.of(closes);
        assertEquals(List.of(new CloseSummary("x", Workload.FILLSEQ, 3, 5, 90),
                new CloseSummary("x", Workload.FILLRANDOM, 2, 5, 7), new CloseSummary("y", Workload.FILLSEQ, 1, 2, 2)), s);
    }

    @Test
    void zipfianLookupsStillFindLoadedKeys() throws Exception {
        BenchConfig base = smallConfig();
        BenchConfig zipf = new BenchConfig(base.keys(), base.keySize(), base.valueSize(), 2, base.reads(), 0,
                base.bitsPerKey(), base.filterKind(), base.blockCacheBytes(), base.memtableBytes(), base.compression(),
                base.missingFraction(), base.scanLength(), base.seed(), BenchConfig.Distribution.ZIPFIAN);
        List<WorkloadResult> results = run("sim", zipf, Workload.FILLRANDOM, Workload.READRANDOM,
                Workload.READMISSING, Workload.UPDATERANDOM);
        assertEquals(zipf.reads(), find(results, Workload.READRANDOM).found());
        assertEquals(0, find(results, Workload.READMISSING).found());
        assertEquals(zipf.reads(), find(results, Workload.UPDATERANDOM).found());
    }

    private static double opsPerSec(BenchResults run, String engine, int round) {
        return run.results().stream().filter(r -> r.engine().equals(engine) && r.round() == round
                && r.workload() == Workload.READRANDOM).findFirst().orElseThrow().opsPerSec();
    }

    /** A simulated engine that notes its name in {@code started} when opened on an empty store for a fill. */
    private static BenchEngine recording(String name, List<String> started, Map<Path, List<SimulatedEngine.Table>> disk) {
        SimulatedEngine engine = new SimulatedEngine(true, disk);
        return new Forwarding(engine) {
            @Override
            public void open(Path d, BenchConfig config) throws IOException {
                if (!Files.exists(d.resolve(SimulatedEngine.MARKER))) {
                    synchronized (started) {
                        started.add(name);
                    }
                }
                super.open(d, config);
            }
        };
    }

    /** A bench engine that hands every call to {@code engine}; the tests override what they watch. */
    private static class Forwarding implements BenchEngine {
        private final BenchEngine engine;

        Forwarding(BenchEngine engine) {
            this.engine = engine;
        }

        @Override
        public void open(Path d, BenchConfig config) throws IOException {
            engine.open(d, config);
        }

        @Override
        public void put(byte[] key, byte[] value) throws IOException {
            engine.put(key, value);
        }

        @Override
        public int get(byte[] key, byte[] valueBuffer) throws IOException {
            return engine.get(key, valueBuffer);
        }

        @Override
        public int seekScan(byte[] startKey, int count, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
            return engine.seekScan(startKey, count, keyBuffer, valueBuffer);
        }

        @Override
        public void prepareForReads() throws IOException {
            engine.prepareForReads();
        }

        @Override
        public EngineCounters counters() {
            return engine.counters();
        }

        @Override
        public void close() throws IOException {
            engine.close();
        }
    }
}
