package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deleterange workload on BloomStore and RocksDB, small: both deletion modes leave the deleted
 * range empty and the rest whole (the run checks both and throws otherwise), and the table of
 * medians and ratios is printed.
 */
class RangeDeleteBenchTest {
    @TempDir
    Path dir;

    @Test
    void bothEnginesBothModes() throws Exception {
        BenchConfig config = BenchRunnerTest.smallConfig().withKeys(4_000);
        StringWriter text = new StringWriter();
        Map<String, Map<String, double[]>> medians = RangeDeleteBench.run(dir, config, EngineFactory.standard(), 1,
                new PrintWriter(text));
        System.out.println(text);
        assertEquals(2, medians.size());
        for (Map<String, double[]> byMode : medians.values()) {
            assertEquals(2, byMode.size());
        }
        assertTrue(text.toString().contains("rocks/bloom range"), text.toString());
    }
}
