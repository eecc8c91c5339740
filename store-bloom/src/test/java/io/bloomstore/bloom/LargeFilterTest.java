package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

/**
 * Filters past 2^31 bits: bit indexes are longs all the way down. Each filter here holds
 * about 268 MB of native memory (off the 2 GB test heap), one at a time.
 */
class LargeFilterTest {
    private static final long TWO_31 = 1L << 31;

    @Test
    void bitsNearTheTopOfALargeNativeFilter() {
        long m = TWO_31 + 100;
        try (BloomFilter f = BloomFilter.withHashFunctions(m, Storage.NATIVE, x -> x)) {
            assertTrue(f.isOffHeap());
            long[] set = {0, TWO_31 - 1, TWO_31, TWO_31 + 63, TWO_31 + 64, m - 1};
            for (long x : set) {
                f.addHash(x);
            }
            for (long x : set) {
                assertTrue(f.bit(x), "bit " + x);
                assertTrue(f.mightContainHash(x), "value " + x);
            }
            // Reduced mod m: m + 5 lands on bit 5, which is clear; 2m − 1 on m − 1, which is set.
            assertFalse(f.mightContainHash(m + 5));
            assertTrue(f.mightContainHash(2 * m - 1));
            for (long x : new long[] {1, TWO_31 - 2, TWO_31 + 1, TWO_31 + 62, TWO_31 + 65, m - 2}) {
                assertFalse(f.bit(x), "bit " + x);
            }
            assertEquals(set.length, f.bitsSet());
        }
    }

    @Test
    void hashedProbesReachPastTwoToThe31() {
        long m = TWO_31 + (1L << 20);
        long seed = 7;
        try (BloomFilter f = BloomFilter.create(m, 7, Storage.NATIVE)) {
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < 1_000_000; i++) {
                f.addHash(random.nextLong());
            }
            random = new SplittableRandom(seed);
            for (int i = 0; i < 1_000_000; i++) {
                assertTrue(f.mightContainHash(random.nextLong()), "false negative " + i + ", seed " + seed);
            }
            long above = 0;
            for (long i = TWO_31; i < m; i++) {
                if (f.bit(i)) {
                    above++;
                }
            }
            // 7·10^6 probes over m bits put about 3,400 in the top 2^20: clearly more than none.
            assertTrue(above > 2_000, "bits set above 2^31: " + above);
        }
    }
}
