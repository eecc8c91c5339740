package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

class BinaryFuseFilterTest {
    private static final long SEED = 99L;

    @Test
    void fuse8RateAndBitsPerKeyAsDesigned() {
        System.out.println("BinaryFuseFilterTest seed " + SEED);
        Random rnd = new Random(SEED);
        int n = 1_000_000;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = rnd.nextLong();
        }
        try (BinaryFuseFilter f = BinaryFuseFilter.build(keys, n, 8, Storage.NATIVE)) {
            for (long k : keys) {
                assertTrue(f.mightContainHash(k), "false negative");
            }
            int trials = 1_000_000;
            int fp = 0;
            for (int i = 0; i < trials; i++) {
                if (f.mightContainHash(rnd.nextLong())) {
                    fp++;
                }
            }
            double rate = (double) fp / trials;
            double bitsPerKey = (double) f.bitSize() / n;
            System.out.printf("fuse8 n=%d: FPR %.5f (design 1/256 = 0.00391), %.3f bits/key (bound 8, ratio %.3f)%n",
                    n, rate, bitsPerKey, bitsPerKey / 8);
            // 1/256 ± 10% (the standard error at 10^6 trials is 1.6%).
            assertEquals(1.0 / 256, rate, 0.1 / 256);
            // Graf & Lemire's sizing at 10^6 keys: 1.125 × 8 = 9 bits per key plus segment rounding.
            assertTrue(bitsPerKey <= 1.15 * 8, "bits per key " + bitsPerKey);
        }
    }

    @Test
    void fuse16AndSmallSetsAndDuplicates() {
        Random rnd = new Random(SEED);
        for (int n : new int[] {0, 1, 2, 3, 10, 100, 5_000}) {
            long[] keys = new long[2 * n];
            for (int i = 0; i < n; i++) {
                keys[i] = rnd.nextLong();
                keys[n + i] = keys[i];
            }
            try (BinaryFuseFilter f = BinaryFuseFilter.build(keys, keys.length, 16, Storage.HEAP)) {
                assertEquals(n, f.count(), "duplicates must be removed");
                for (long k : keys) {
                    assertTrue(f.mightContainHash(k), "false negative at n=" + n);
                }
            }
        }
    }

    /** Keys are tried unsorted first; the filter must not depend on their order. */
    @Test
    void theSameKeysInAnyOrderGiveTheSameFilter() {
        Random rnd = new Random(SEED);
        long[] keys = new long[50_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = rnd.nextLong();
        }
        long[] sorted = keys.clone();
        java.util.Arrays.sort(sorted);
        try (BinaryFuseFilter a = BinaryFuseFilter.build(keys, keys.length, 8, Storage.HEAP);
             BinaryFuseFilter b = BinaryFuseFilter.build(sorted, sorted.length, 8, Storage.HEAP)) {
            assertEquals(a.header(), b.header());
            for (int i = 0; i < 200_000; i++) {
                long probe = rnd.nextLong();
                assertEquals(a.mightContainHash(probe), b.mightContainHash(probe), "probe " + probe);
            }
        }
    }

    /** A bits-per-key budget is memory: the fingerprints are the widest the budget holds. */
    @Test
    void theFingerprintWidthStaysWithinTheBudget() {
        assertEquals(8, Filters.fuseFingerprintBits(10));
        assertEquals(8, Filters.fuseFingerprintBits(12));
        assertEquals(8, Filters.fuseFingerprintBits(17.9));
        assertEquals(16, Filters.fuseFingerprintBits(18));
        assertEquals(16, Filters.fuseFingerprintBits(24));
        Random rnd = new Random(SEED);
        long[] keys = new long[100_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = rnd.nextLong();
        }
        for (double budget : new double[] {10, 12, 16, 20}) {
            try (MembershipFilter f = Filters.build(FilterKind.BINARY_FUSE, budget, keys, keys.length, Storage.HEAP)) {
                double spent = (double) f.bitSize() / keys.length;
                assertTrue(spent <= budget, "budget " + budget + " bits per key, spent " + spent);
            }
        }
    }

    @Test
    void filtersBuildMakesAStaticFilterAndItRejectsAdds() {
        long[] keys = {1, 2, 3, 4, 5};
        try (MembershipFilter f = Filters.build(FilterKind.BINARY_FUSE, 10, keys, keys.length, Storage.HEAP)) {
            assertEquals(FilterKind.BINARY_FUSE, f.kind());
            assertThrows(UnsupportedOperationException.class, () -> f.addHash(6));
        }
    }
}
