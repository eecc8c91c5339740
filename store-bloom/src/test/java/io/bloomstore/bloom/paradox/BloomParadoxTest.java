package io.bloomstore.bloom.paradox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.CountingBloomFilter;
import io.bloomstore.bloom.storage.Storage;

/** Hand-computed values (exact arithmetic, 50 digits) for the paradox formulas. */
class BloomParadoxTest {

    @Test
    void thresholdMatchesHandComputedValues() {
        // 1/(1 + 1·2^(ln2·8)) = 1/(1 + e^(8(ln 2)²)) = 1/47.6939...
        assertEquals(0.020966824806031587, BloomParadox.threshold(1, 8.0), 1e-15);
        assertEquals(0.0016358295706998982, BloomParadox.threshold(5, 10.0), 1e-16);
        // The seminar's filter: 33,280 counters for 30,000 addresses, α = 100.
        assertEquals(0.0058342818493808506, BloomParadox.threshold(100, 33_280, 30_000), 1e-16);
        assertEquals(0.5, BloomParadox.presentThreshold(1), 0);
        assertEquals(1.0 / 101, BloomParadox.presentThreshold(100), 1e-17);
    }

    @Test
    void paradoxHoldsBelowTheThresholdOnly() {
        double t = BloomParadox.threshold(1, 8.0);
        assertTrue(BloomParadox.holds(t * 0.99, 1, 8.0));
        assertFalse(BloomParadox.holds(t * 1.01, 1, 8.0));
        // A larger α (misses dearer) lowers the threshold: the paradox holds less often.
        assertTrue(BloomParadox.threshold(100, 8.0) < BloomParadox.threshold(1, 8.0));
    }

    @Test
    void posteriorMatchesHandComputedValues() {
        // m=10, n=5, k=2, c=(2,3), P=1/2: 100·6·0.5 / (100·6·0.5 + 10²·0.5) = 300/350.
        assertEquals(300.0 / 350, BloomParadox.posterior(new int[] {2, 3}, 2, 10, 5, 0.5), 1e-15);
        // m=100, n=10, k=3, c=(1,1,1), P=0.01: 10^4 / (10^4 + 30³·0.99).
        assertEquals(0.27225701061802343, BloomParadox.posterior(new int[] {1, 1, 1}, 3, 100, 10, 0.01), 1e-15);
        assertEquals(0, BloomParadox.posterior(new int[] {4, 0, 4}, 3, 100, 10, 0.5), 0);
    }

    @Test
    void posteriorDoesNotOverflowWhereMToTheKWould() {
        // m^k = 10^360 overflows a double; the log-space result is exact to 1e-12.
        int[] c = new int[40];
        Arrays.fill(c, 5);
        assertEquals(0.0074669958788301785, BloomParadox.posterior(c, 40, 1_000_000_000L, 100_000_000L, 1e-6), 1e-12);
    }

    @Test
    void selectiveFilterSkipsInsertsThatWouldMakeTheParadoxHold() {
        // P = 0.2, α = 1: the paradox holds once 2^(ln2·m/n) > 4, i.e. m/n < 2/ln2 = 2.885.
        try (SelectiveCountingBloomFilter f = new SelectiveCountingBloomFilter(1_000, 2, 1, 0.2, Storage.HEAP)) {
            for (long h = 1; h <= 1_000; h++) {
                f.offerHash(h * 0x9E3779B97F4A7C15L);
            }
            assertEquals(346, f.inserted(), "1000/346 = 2.890 ≥ 2.885 > 1000/347");
            assertEquals(1_000 - 346, f.skipped());
        }
    }

    @Test
    void selectiveFilterAnswersByPosterior() {
        // m = 1000, k = 3, α = 1, P = 0.05: the paradox allows at most 163 inserts (m/n ≥ 6.13).
        try (SelectiveCountingBloomFilter f = new SelectiveCountingBloomFilter(1_000, 3, 1, 0.05, Storage.HEAP);
             CountingBloomFilter plain = CountingBloomFilter.create(1_000, 3, Storage.HEAP)) {
            long heavy = 0x123456789ABCDEFL;
            for (int i = 0; i < 10; i++) {
                assertTrue(f.offerHash(heavy));
                plain.addHash(heavy);
            }
            for (long h = 1; h <= 150; h++) {
                assertTrue(f.offerHash(h * 0x9E3779B97F4A7C15L));
                plain.addHash(h * 0x9E3779B97F4A7C15L);
            }
            assertTrue(f.mightContainHash(heavy), "posterior " + f.posteriorHash(heavy));
            Random rnd = new Random(11);
            int plainPositives = 0;
            int selectivePositives = 0;
            int[] c = new int[3];
            for (int i = 0; i < 20_000; i++) {
                long x = rnd.nextLong();
                plain.counters(x, c);
                double expected = BloomParadox.posterior(c, 3, 1_000, 160, 0.05);
                assertEquals(expected, f.posteriorHash(x), 1e-15);
                assertEquals(expected >= 0.5, f.mightContainHash(x));
                plainPositives += plain.mightContainHash(x) ? 1 : 0;
                selectivePositives += f.mightContainHash(x) ? 1 : 0;
            }
            System.out.printf("absent keys answered present: counting %d, selective %d of 20000%n", plainPositives,
                    selectivePositives);
            assertTrue(selectivePositives < plainPositives / 2, selectivePositives + " vs " + plainPositives);
        }
    }
}
