package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counters workload, small: all four ways run, every counter reads back its expected sum (the
 * run checks each and throws otherwise), and the medians and ratios are printed.
 */
class CountersBenchTest {
    @TempDir
    Path dir;

    @Test
    void allFourWaysCountRight() throws Exception {
        StringWriter text = new StringWriter();
        Map<String, List<CountersBench.Round>> results = CountersBench.run(dir, 50, 5_000, 1, new PrintWriter(text));
        assertEquals(CountersBench.WAYS, List.copyOf(results.keySet()));
        for (List<CountersBench.Round> rounds : results.values()) {
            assertTrue(rounds.get(0).incrementsPerSecond() > 0);
        }
        assertTrue(text.toString().contains("bloomstore-merge / rocksdb-merge"), text.toString());
    }
}
