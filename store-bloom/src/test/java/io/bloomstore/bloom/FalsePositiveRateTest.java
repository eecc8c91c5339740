package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

/**
 * Measured false-positive rates against {@link BloomMath}, at 10 bits per key over 10^6
 * random keys, queried with 10^6 other random keys. Tolerance: measured within 10% of
 * theory (at about 8,200 expected false positives one standard deviation is about 1%, so
 * a failure means a real bias, not bad luck). Seed {@value #SEED}. Also: not one false
 * negative over every inserted key.
 */
class FalsePositiveRateTest {
    private static final long SEED = 20_240_601L;
    private static final int KEYS = 1_000_000;
    private static final int QUERIES = 1_000_000;
    private static final double BITS_PER_KEY = 10;
    private static final double TOLERANCE = 0.10;

    @Test
    void standardFilterMatchesTheory() {
        long m = (long) (BITS_PER_KEY * KEYS);
        int k = BloomMath.optimalK(BITS_PER_KEY);
        try (BloomFilter f = BloomFilter.create(m, k, Storage.NATIVE)) {
            double measured = measure(f);
            double theory = BloomMath.fpr(m, KEYS, k);
            report("standard", measured, theory);
            assertEquals(theory, measured, theory * TOLERANCE, "standard FPR, seed " + SEED);
        }
    }

    @Test
    void blockedFilterMatchesItsTheory() {
        long m = (long) (BITS_PER_KEY * KEYS);
        int k = BloomMath.optimalK(BITS_PER_KEY);
        try (BlockedBloomFilter f = BlockedBloomFilter.create(m, k, HashStrategy.XXH3_64, 0, Storage.NATIVE)) {
            double measured = measure(f);
            double theory = BloomMath.blockedFpr(f.bitSize(), KEYS, k, BlockedBloomFilter.BLOCK_BITS);
            report("blocked", measured, theory);
            assertEquals(theory, measured, theory * TOLERANCE, "blocked FPR, seed " + SEED);
        }
    }

    @Test
    void seedSizedFilterStaysNearItsTarget() {
        try (MembershipFilter f = Filters.create(FilterKind.BLOOM, KEYS, 0.01, Storage.HEAP)) {
            double measured = measure(f);
            report("create(n, 1%)", measured, 0.01);
            assertEquals(0.01, measured, 0.01 * TOLERANCE, "seed " + SEED);
        }
    }

    /** Adds KEYS random 16-byte keys, checks each is found, returns the rate over QUERIES others. */
    private static double measure(MembershipFilter f) {
        SplittableRandom random = new SplittableRandom(SEED);
        byte[] key = new byte[16];
        for (int i = 0; i < KEYS; i++) {
            fill(key, random.nextLong(), i);
            f.add(key);
        }
        random = new SplittableRandom(SEED);
        for (int i = 0; i < KEYS; i++) {
            fill(key, random.nextLong(), i);
            assertTrue(f.mightContain(key), "false negative for key " + i + ", seed " + SEED);
        }
        long falsePositives = 0;
        for (int i = 0; i < QUERIES; i++) {
            // The index half differs from every inserted key's (i < KEYS), so none was added.
            fill(key, random.nextLong(), KEYS + i);
            if (f.mightContain(key)) {
                falsePositives++;
            }
        }
        return (double) falsePositives / QUERIES;
    }

    private static void fill(byte[] key, long random, long index) {
        for (int b = 0; b < 8; b++) {
            key[b] = (byte) (random >>> (8 * b));
            key[8 + b] = (byte) (index >>> (8 * b));
        }
    }

    private static void report(String what, double measured, double theory) {
        System.out.printf("%s: measured FPR %.5f, theory %.5f (ratio %.3f), seed %d%n",
                what, measured, theory, measured / theory, SEED);
    }
}
