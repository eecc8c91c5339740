package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

class ScalableBloomFilterTest {
    private static final long SEED = 4242L;

    @Test
    void noFalseNegativesAndCompoundFprUnderTargetAfterHundredfoldGrowth() {
        System.out.println("ScalableBloomFilterTest seed " + SEED);
        Random rnd = new Random(SEED);
        int initial = 1_000;
        int keys = 100 * initial;
        double target = 0.01;
        try (ScalableBloomFilter f = ScalableBloomFilter.create(initial, target, Storage.NATIVE)) {
            long[] added = new long[keys];
            for (int i = 0; i < keys; i++) {
                added[i] = rnd.nextLong();
                f.addHash(added[i]);
            }
            for (long h : added) {
                assertTrue(f.mightContainHash(h), "false negative");
            }
            int trials = 400_000;
            int fp = 0;
            for (int i = 0; i < trials; i++) {
                if (f.mightContainHash(rnd.nextLong())) {
                    fp++;
                }
            }
            double measured = (double) fp / trials;
            System.out.printf("stages=%d measured compound FPR %.5f, expected %.5f, target %.2f%n", f.stageCount(),
                    measured, f.expectedFpp(), target);
            assertTrue(f.stageCount() >= 7, "chain did not grow: " + f.stageCount());
            assertTrue(f.expectedFpp() < target, "expected compound FPR " + f.expectedFpp());
            // Sampling error at 400k trials is about ±0.0005 around a rate of at most 0.01.
            assertTrue(measured < target, "measured compound FPR " + measured);
        }
    }
}
