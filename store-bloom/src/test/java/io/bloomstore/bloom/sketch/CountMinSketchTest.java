package io.bloomstore.bloom.sketch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

class CountMinSketchTest {
    private static final long SEED = 31337L;

    @Test
    void sizedFromEpsilonAndDelta() {
        try (CountMinSketch s = CountMinSketch.forError(0.001, 0.01, Storage.HEAP)) {
            assertEquals(2719, s.width());
            assertEquals(5, s.depth());
        }
    }

    @Test
    void errorAtMostEpsilonNForAllButDeltaOfItems() {
        System.out.println("CountMinSketchTest seed " + SEED);
        double eps = 0.002;
        double delta = 0.01;
        Random rnd = new Random(SEED);
        Map<Long, Long> truth = new HashMap<>();
        try (CountMinSketch s = CountMinSketch.forError(eps, delta, Storage.NATIVE)) {
            int n = 200_000;
            for (int i = 0; i < n; i++) {
                // Skewed stream: a few items very often, most rarely.
                long item = (long) Math.floor(Math.pow(rnd.nextDouble(), 3) * 20_000);
                long h = io.bloomstore.bloom.Filters.hash(Long.toString(item).getBytes());
                s.addHash(h, 1);
                truth.merge(h, 1L, Long::sum);
            }
            long bad = 0;
            for (Map.Entry<Long, Long> e : truth.entrySet()) {
                long est = s.estimateHash(e.getKey());
                assertTrue(est >= e.getValue(), "Count-Min underestimated");
                if (est - e.getValue() > eps * n) {
                    bad++;
                }
            }
            System.out.printf("%d of %d items off by more than εN = %.0f%n", bad, truth.size(), eps * n);
            assertTrue(bad <= delta * truth.size(), bad + " items off by more than εN");
        }
    }
}
