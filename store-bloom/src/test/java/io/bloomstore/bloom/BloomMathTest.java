package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The cheat-sheet formulas of {@link BloomMath}, against each other and the seeds' numbers. */
class BloomMathTest {

    @Test
    void seedNumbers() {
        assertEquals(6, BloomMath.optimalK(8000, 1000));
        assertEquals(0.022, BloomMath.fpr(8000, 1000, 6), 0.0005);
        assertEquals(0.02, BloomMath.fpr(8, 1, 5), 0.002);
        assertEquals(9.6, BloomMath.bitsPerKeyFor(0.01), 0.05);
        assertTrue(BloomMath.fpr(32_000, 1000, 13) < 1e-6);
        assertEquals(0.6185, BloomMath.OPTIMAL_FPR_BASE, 1e-4);
    }

    @Test
    void optimalKMinimisesTheRate() {
        long m = 10_000;
        long n = 1000;
        int best = BloomMath.optimalK(m, n);
        for (int k = 1; k <= 20; k++) {
            assertTrue(BloomMath.fpr(m, n, best) <= BloomMath.fpr(m, n, k) * 1.0001, "k=" + k);
        }
        assertEquals(best, BloomMath.optimalK(10.0));
    }

    @Test
    void bitsForGivesTheRequestedRateAtOptimalK() {
        for (double p : new double[] {0.1, 0.01, 0.001, 1e-6}) {
            long n = 1_000_000;
            long m = BloomMath.bitsFor(n, p);
            assertEquals(p, BloomMath.fprAtOptimalK((double) m / n), p * 1e-4, "p=" + p);
            // Rounding k to an integer costs at most a few percent.
            assertEquals(p, BloomMath.fpr(m, n, BloomMath.optimalK(m, n)), p * 0.05, "p=" + p);
        }
    }

    @Test
    void oneBitTableIsTheKEqualsOneCase() {
        assertEquals(1 - Math.exp(-0.5), BloomMath.oneBitFpr(200, 100), 1e-12);
        assertEquals(BloomMath.fpr(200, 100, 1), BloomMath.oneBitFpr(200, 100), 0);
    }

    @Test
    void emptyFilterNeverAnswersFalsely() {
        assertEquals(0, BloomMath.fpr(1000, 0, 7));
        assertEquals(0, BloomMath.blockedFpr(1024, 0, 7, 512));
    }

    @Test
    void blockedRateIsAboveTheStandardRate() {
        long n = 1_000_000;
        for (int bitsPerKey : new int[] {8, 10, 16}) {
            long m = n * bitsPerKey;
            int k = BloomMath.optimalK(bitsPerKey);
            double standard = BloomMath.fpr(m, n, k);
            double blocked = BloomMath.blockedFpr(m, n, k, 512);
            assertTrue(blocked > standard && blocked < standard * 3, bitsPerKey + " bits/key: " + blocked + " vs " + standard);
        }
    }

    @Test
    void informationBound() {
        assertEquals(6.644, BloomMath.informationBound(0.01), 1e-3);
        assertTrue(BloomMath.bitsPerKeyFor(0.01) / BloomMath.informationBound(0.01) > 1.44 - 1e-3);
    }

    @Test
    void rejectsImpossibleArguments() {
        assertThrows(IllegalArgumentException.class, () -> BloomMath.bitsFor(0, 0.01));
        assertThrows(IllegalArgumentException.class, () -> BloomMath.bitsFor(10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> BloomMath.bitsFor(10, 0));
        assertThrows(IllegalArgumentException.class, () -> BloomMath.optimalK(0, 10));
        assertThrows(IllegalArgumentException.class, () -> BloomMath.optimalK(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> BloomMath.fpr(100, 10, 0));
    }
}
