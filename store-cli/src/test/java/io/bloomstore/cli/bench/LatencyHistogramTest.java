package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void bucketsCoverValuesWithinThreePercent() {
        long[] samples = {0, 1, 31, 32, 33, 63, 64, 65, 1000, 123_456, 9_999_999_999L, Long.MAX_VALUE};
        for (long v : samples) {
            int i = LatencyHistogram.index(v);
            long upper = LatencyHistogram.upperBound(i);
            assertTrue(upper >= v, v + " above its bucket's upper bound " + upper);
            assertTrue(upper - v <= Math.max(0, v / 32), v + " too far below " + upper);
            if (i > 0) {
                assertTrue(LatencyHistogram.upperBound(i - 1) < v, "previous bucket holds " + v);
            }
        }
    }

    @Test
    void percentilesOfAUniformRange() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 10_000; v++) {
            h.record(v * 1000);
        }
        assertEquals(10_000, h.count());
        assertEquals(5_000_000, h.valueAt(0.5), 5_000_000 / 32.0);
        assertEquals(9_900_000, h.valueAt(0.99), 9_900_000 / 32.0);
        assertEquals(10_000_000, h.valueAt(1.0));
        assertEquals(9_990, h.micros(0.999), 9_990 / 32.0);
    }

    @Test
    void mergeAddsCounts() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        b.record(1_000_000);
        a.merge(b);
        assertEquals(2, a.count());
        assertEquals(10, a.valueAt(0.5));
        assertEquals(1_000_000, a.valueAt(1.0));
        assertEquals(0, new LatencyHistogram().valueAt(0.99));
    }
}
