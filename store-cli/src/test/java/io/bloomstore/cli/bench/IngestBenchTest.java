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

    /** The counted keys are {@code key(i)}'s bytes, each in an array of its own, across every carry. */
    @Test
    void countedKeysAreTheDividedOnes() {
        IngestBench.Keys keys = new IngestBench.Keys();
        byte[] previous = null;
        for (long i = 0; i < 1_100_000; i++) {
            byte[] k = keys.next();
            if (!Arrays.equals(IngestBench.key(i), k)) {
                assertEquals(new String(IngestBench.key(i)), new String(k), "key " + i);
            }
            assertTrue(k != previous);
            previous = k;
        }
    }

    /** The word-at-a-time value maker writes exactly the bytes of the SplitMix64 stream, byte by byte. */
    @Test
    void valuesAreTheSplitMixStreamsBytes() {
        for (int size : new int[] {1, 7, 8, 9, 100, 1024}) {
            for (long i : new long[] {0, 1, 12_345, 9_999_999}) {
                byte[] fast = new byte[size];
                IngestBench.value(i, fast);
                byte[] slow = new byte[size];
                long x = 42 + i * 0x9E3779B97F4A7C15L;
                for (int j = 0; j < size; j += 8) {
                    x += 0x9E3779B97F4A7C15L;
                    long z = x;
                    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
                    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
                    z ^= z >>> 31;
                    for (int b = 0; b < 8 && j + b < size; b++) {
                        slow[j + b] = (byte) (z >>> (8 * b));
                    }
                }
                assertEquals(Arrays.toString(slow), Arrays.toString(fast), "size " + size + ", key " + i);
            }
        }
    }
}
