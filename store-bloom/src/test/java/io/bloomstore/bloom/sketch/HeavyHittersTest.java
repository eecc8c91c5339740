package io.bloomstore.bloom.sketch;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.storage.Storage;

class HeavyHittersTest {
    private static final long SEED = 8080L;

    @Test
    void reportsEveryItemAboveNOverKAndNoneBelowNOverKMinusEpsilonN() {
        System.out.println("HeavyHittersTest seed " + SEED);
        Random rnd = new Random(SEED);
        int k = 100;
        double eps = 0.001;
        List<String> stream = new ArrayList<>();
        // 30 items well above N/k, 30 just around it, and a long tail of singletons.
        for (int i = 0; i < 30; i++) {
            for (int j = 0; j < 4_000; j++) {
                stream.add("hot-" + i);
            }
        }
        for (int i = 0; i < 30; i++) {
            int reps = 2_000 + rnd.nextInt(1_000);
            for (int j = 0; j < reps; j++) {
                stream.add("warm-" + i);
            }
        }
        for (int i = 0; i < 60_000; i++) {
            stream.add("cold-" + i);
        }
        Collections.shuffle(stream, rnd);
        Map<String, Integer> truth = new HashMap<>();
        try (CountMinSketch cms = CountMinSketch.forError(eps, 0.001, Storage.HEAP)) {
            HeavyHitters<String> hh = new HeavyHitters<>(cms, k, s -> Filters.hash(s.getBytes()));
            for (String s : stream) {
                hh.offer(s);
                truth.merge(s, 1, Integer::sum);
                assertTrue(hh.size() <= k, "more than k entries");
            }
            double n = stream.size();
            for (Map.Entry<String, Integer> e : truth.entrySet()) {
                if (e.getValue() >= n / k) {
                    assertTrue(hh.contains(e.getKey()), e.getKey() + " seen " + e.getValue() + " ≥ N/k missing");
                }
            }
            for (HeavyHitters.Hitter<String> h : hh.hitters()) {
                assertTrue(truth.get(h.item()) >= n / k - eps * n, h.item() + " below N/k − εN");
            }
            System.out.printf("N=%d, N/k=%.0f, εN=%.0f, reported %d%n", stream.size(), n / k, eps * n, hh.size());
            assertTrue(hh.size() >= 30, "the 30 hot items must be reported");
        }
    }
}
