package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * fillbatch on BloomStore (a {@code WriteBatch} per 1,000 keys) and RocksDB (its {@code WriteBatch}):
 * it runs first of the fills, so readrandom still reads the store fillrandom left, and, run alone
 * before the reads, it leaves every key loaded (a partial last batch included: 5,003 keys).
 */
class FillBatchTest {

    @TempDir
    Path dir;

    @Test
    void batchesLoadEveryKey() throws Exception {
        BenchConfig config = BenchRunnerTest.smallConfig().withKeys(5_003).withReads(3_000);
        System.out.println("FillBatchTest seed " + config.seed());
        List<String> engines = List.of(BloomStoreEngine.NAME, RocksDbEngine.NAME);
        BenchResults run = new BenchRunner(config, EngineFactory.standard(), null).run(engines,
                List.of(Workload.READRANDOM, Workload.FILLBATCH), dir, 1);
        Headline h = new Headline(run.results());
        for (String e : engines) {
            assertEquals(config.keys(), h.find(e, Workload.FILLBATCH).ops(), e);
            assertEquals(config.reads(), h.find(e, Workload.READRANDOM).found(), e + ": every key the batches wrote");
        }
        List<Workload> order = run.results().stream().filter(r -> r.engine().equals(RocksDbEngine.NAME))
                .map(WorkloadResult::workload).toList();
        assertEquals(List.of(Workload.FILLBATCH, Workload.READRANDOM), order);
    }
}
