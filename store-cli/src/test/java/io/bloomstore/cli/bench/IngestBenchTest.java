package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest workload, small: all three ways leave every checked key readable (the run checks every
 * 1,000th and throws otherwise), keys sort as their numbers do, and the ratios are printed.
 */
class IngestBenchTest {
    @TempDir
    Path dir;

    @Test
    void allThreeWaysLoadTheKeys() throws Exception {
        StringWriter text = new StringWriter();
        Map<String, List<Double>> seconds = IngestBench.run(dir, 20_000, 100, 1, new PrintWriter(text));
        assertEquals(IngestBench.WAYS, List.copyOf(seconds.keySet()));
        assertTrue(text.toString().contains("bloomstore-ingest / rocksdb-ingest"), text.toString());
        assertTrue(Arrays.compareUnsigned(IngestBench.key(9), IngestBench.key(10)) < 0);
        assertEquals("key0000000001234", new String(IngestBench.key(1234)));
    }
}
