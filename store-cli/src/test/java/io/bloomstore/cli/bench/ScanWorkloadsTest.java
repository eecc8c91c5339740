package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The scan workloads on BloomStore and RocksDB: each finds what it should (every prefix scan of a
 * loaded prefix its keys, every range scan its key, the missing ones nothing), and BloomStore's
 * missing prefixes and correlated empty ranges read almost no data block. Small sizes: what is
 * measured is correctness and block reads, not speed.
 */
class ScanWorkloadsTest {
    private static final ScanConfig SCANS = new ScanConfig(4, 50, 1024, 22, true);

    @TempDir
    Path dir;

    @Test
    void scanWorkloadsFindWhatTheyShouldAndFiltersSaveTheReads() throws Exception {
        BenchConfig base = BenchConfig.defaults();
        BenchConfig config = new BenchConfig(20_000, 16, 32, 1, 3_000, 0, 10, base.filterKind(), 1L << 20,
                256L << 10, base.compression(), 0.5, 10, 7, BenchConfig.Distribution.UNIFORM);
        List<Workload> workloads = List.of(Workload.FILLRANDOM, Workload.PREFIXSCAN, Workload.PREFIXMISSING,
                Workload.RANGESCAN, Workload.RANGEMISSING);
        List<WorkloadResult> results = new BenchRunner(config, SCANS, EngineFactory.standard(), null, 0)
                .run(List.of(BloomStoreEngine.NAME, RocksDbEngine.NAME), workloads, dir);
        for (WorkloadResult r : results) {
            switch (r.workload()) {
                case PREFIXSCAN, RANGESCAN -> assertEquals(r.ops(), r.found(), r.engine() + " " + r.workload());
                case PREFIXMISSING, RANGEMISSING -> assertEquals(0, r.found(), r.engine() + " " + r.workload());
                default -> {
                }
            }
        }
        for (Workload w : List.of(Workload.PREFIXMISSING, Workload.RANGEMISSING)) {
            WorkloadResult r = results.stream().filter(x -> x.engine().equals(BloomStoreEngine.NAME)
                    && x.workload() == w).findFirst().orElseThrow();
            System.out.printf("bloomstore %s: %.4f data-block reads per scan%n", w.cliName(), r.dataBlockReadsPerOp());
            assertTrue(r.dataBlockReadsPerOp() <= 0.05, w.cliName() + " reads per scan " + r.dataBlockReadsPerOp());
        }
    }

    @Test
    void scanWorkloadsNeedAPrefixStructure() {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new BenchCommand(EngineFactory.standard()));
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        int code = cmd.execute("--workloads", "prefixmissing", "--keys", "1000", "--no-progress");
        assertEquals(2, code, out.toString());
        assertTrue(out.toString().contains("--prefix-bytes"), out.toString());
    }
}
