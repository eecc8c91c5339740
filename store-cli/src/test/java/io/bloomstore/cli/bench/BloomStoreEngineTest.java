package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Small real runs of BloomStore with and without filters (20,000 keys, a memtable of a fifth
 * of their key and value bytes, so about seven level-0 tables (the memtable also counts each
 * entry's overhead) that all span the key range; a block cache of one byte,
 * so every block a lookup needs is a counted read): the store's counters must tell the story
 * the benchmark reports.
 * Tolerance: with filters, data-block reads per missing lookup within 25% of configured FPR ×
 * tables consulted (more than six standard deviations for the 140,000 filter checks). Seed: that of
 * {@link BenchRunnerTest#smallConfig()}.
 */
class BloomStoreEngineTest {

    @TempDir
    Path dir;

    private static BenchConfig config() {
        BenchConfig c = BenchRunnerTest.smallConfig();
        // The memtable counts about 45 bytes per entry besides key and value (arena record, value
        // slot and array header), so four fifths of the simulated engine's memtable gives about
        // seven level-0 tables here too.
        return new BenchConfig(c.keys(), c.keySize(), c.valueSize(), c.threads(), c.reads(), c.durationSeconds(),
                c.bitsPerKey(), c.filterKind(), 1, c.memtableBytes() * 4 / 5, c.compression(), c.missingFraction(),
                c.scanLength(), c.seed(), c.distribution());
    }

    private Headline run(String engine) throws Exception {
        BenchConfig config = config();
        System.out.println("BloomStoreEngineTest seed " + config.seed());
        return new Headline(new BenchRunner(config, EngineFactory.standard(), null).run(List.of(engine),
                List.of(Workload.FILLRANDOM, Workload.READRANDOM, Workload.READMISSING, Workload.SEEKRANDOM), dir));
    }

    @Test
    void withFiltersMissingLookupsReadAboutFprTimesTablesConsulted() throws Exception {
        Headline h = run(BloomStoreEngine.NAME);
        long reads = config().reads();

        WorkloadResult hits = h.find(BloomStoreEngine.NAME, Workload.READRANDOM);
        assertEquals(reads, hits.found(), "every loaded key is found");
        assertEquals(reads, hits.counters().gets());
        assertTrue(hits.dataBlockReadsPerOp() >= 0.99, "each hit reads its data block: " + hits.dataBlockReadsPerOp());
        assertTrue(hits.counters().filterTruePositives() >= reads, "true positives");

        WorkloadResult missing = h.find(BloomStoreEngine.NAME, Workload.READMISSING);
        assertEquals(0, missing.found());
        double tables = missing.tablesConsultedPerOp();
        // About seven level-0 tables after the fill; the background compaction, now quicker, may
        // have merged some or all of them before the reads: the relation below holds for any count.
        assertTrue(tables >= 0.99 && tables <= 10, "tables consulted per lookup: " + tables);
        assertEquals(missing.counters().tablesConsulted(),
                missing.counters().filterNegatives() + missing.counters().filterPositives());
        double fpr = missing.counters().configuredFpr();
        assertEquals(fpr * tables, missing.dataBlockReadsPerOp(), 0.25 * fpr * tables,
                "data-block reads per missing lookup vs configured FPR x tables consulted");
        assertEquals(fpr, missing.measuredFpr(), 0.25 * fpr, "measured vs configured FPR");
        assertEquals(0, missing.counters().filterTruePositives());
        assertEquals(missing.counters().tablesConsulted() - missing.counters().dataBlockReads(),
                missing.diskAccessesSaved(), "every filter negative is a table not read");

        assertEquals(reads, h.find(BloomStoreEngine.NAME, Workload.SEEKRANDOM).found());
    }

    @Test
    void withoutFiltersEveryTableConsultedIsRead() throws Exception {
        Headline h = run(BloomStoreEngine.NAME_NO_FILTER);
        long reads = config().reads();
        assertEquals(reads, h.find(BloomStoreEngine.NAME_NO_FILTER, Workload.READRANDOM).found());

        WorkloadResult missing = h.find(BloomStoreEngine.NAME_NO_FILTER, Workload.READMISSING);
        assertEquals(0, missing.found());
        double tables = missing.tablesConsultedPerOp();
        // About seven level-0 tables after the fill; the background compaction, now quicker, may
        // have merged some or all of them before the reads: the relation below holds for any count.
        assertTrue(tables >= 0.99 && tables <= 10, "tables consulted per lookup: " + tables);
        assertTrue(missing.dataBlockReadsPerOp() >= tables,
                missing.dataBlockReadsPerOp() + " reads per missing lookup for " + tables + " tables consulted");
        assertEquals(0, missing.diskAccessesSaved());
        assertEquals(1.0, missing.counters().configuredFpr());
        assertTrue(Double.isNaN(missing.measuredFpr()));

        assertEquals(reads, h.find(BloomStoreEngine.NAME_NO_FILTER, Workload.SEEKRANDOM).found());
    }

    @Test
    void theWalBufferReachesTheStoreAndTheJson() throws Exception {
        BenchConfig config = config();
        assertEquals(0, new BloomStoreEngine(true).options(config).walBufferBytes(), "off unless asked");
        BenchConfig buffered = config.withWalBufferBytes(65536);
        assertEquals(65536, new BloomStoreEngine(true).options(buffered).walBufferBytes());
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertEquals(buffered, json.readValue(json.writeValueAsString(buffered), BenchConfig.class),
                "a child JVM gets the same settings");
    }
}
