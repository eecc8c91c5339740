package io.bloomstore.bloom.paradox;

/**
 * The Bloom paradox (Rottenstreich &amp; Keslassy, "The Bloom Paradox: When not to Use a Bloom
 * Filter", INFOCOM 2012): when the a-priori probability P that a queried key is in the set is
 * small enough, a positive answer is more likely false than worth acting on, and the filter
 * costs more than it saves. α = W_FN / W_FP is the cost of a false negative relative to a
 * false positive.
 *
 * <p>Cheat sheet (m bits or counters, n keys, k probes, c_j the key's counters):
 * <pre>
 *   paradox holds   ⇔  P &lt; 1 / (1 + α · 2^(ln 2 · m/n))          (Bloom filter at optimal k)
 *   posterior       =  m^k·Πc_j·P / (m^k·Πc_j·P + (nk)^k·(1 − P))  (counting filter)
 *   answer present  ⇔  posterior ≥ 1 / (α + 1)
 * </pre>
 * The threshold follows from "answer present only if Pr(x ∈ S | positive) ≥ 1/(α + 1)" with
 * Pr(x ∈ S | positive) = P / (P + (1 − P)·f) and f = 2^(−ln 2 · m/n): a larger α (misses
 * expensive) lowers the threshold, so the paradox holds less often. Every product is taken in
 * log space, so m^k and (nk)^k never overflow.
 *
 * <p>Thread safety: stateless.
 */
public final class BloomParadox {
    private static final double LN2 = Math.log(2);

    private BloomParadox() {
    }

    /** The a-priori threshold 1 / (1 + α · 2^(ln 2 · bitsPerKey)); the paradox holds for P below it. */
    public static double threshold(double alpha, double bitsPerKey) {
        checkAlpha(alpha);
        if (!(bitsPerKey > 0)) {
            throw new IllegalArgumentException("bits per key must be positive, got " + bitsPerKey);
        }
        // 1 / (1 + α·2^x) = 1 / (1 + e^(ln α + x ln 2)), kept finite for large m/n.
        double logTerm = Math.log(alpha) + LN2 * bitsPerKey * LN2;
        return logTerm > 700 ? Math.exp(-logTerm) : 1 / (1 + Math.exp(logTerm));
    }

    /** The threshold for m bits and n keys. */
    public static double threshold(double alpha, long m, long n) {
        if (m < 1 || n < 1) {
            throw new IllegalArgumentException("m and n must be positive, got m=" + m + ", n=" + n);
        }
        return threshold(alpha, (double) m / n);
    }

    /** Whether a filter with this a-priori probability is worse than none: P &lt; threshold. */
    public static boolean holds(double prior, double alpha, double bitsPerKey) {
        checkPrior(prior);
        return prior < threshold(alpha, bitsPerKey);
    }

    /** The posterior a counting filter answers with: 1/(α + 1). */
    public static double presentThreshold(double alpha) {
        checkAlpha(alpha);
        return 1 / (alpha + 1);
    }

    /**
     * Pr(x ∈ S | c_1..c_k) for a counting filter of m counters holding n keys with k probes:
     * m^k·Πc_j·P / (m^k·Πc_j·P + (nk)^k·(1 − P)). Zero when any counter is zero.
     */
    public static double posterior(int[] counters, int k, long m, long n, double prior) {
        checkPrior(prior);
        if (k < 1 || k > counters.length || m < 1 || n < 0) {
            throw new IllegalArgumentException("need 1 ≤ k ≤ counters, m ≥ 1, n ≥ 0; got k=" + k + ", m=" + m + ", n=" + n);
        }
        double logProduct = 0;
        for (int j = 0; j < k; j++) {
            if (counters[j] <= 0) {
                return 0;
            }
            logProduct += Math.log(counters[j]);
        }
        if (n == 0 || prior == 1) {
            return 1;
        }
        if (prior == 0) {
            return 0;
        }
        double logMember = k * Math.log(m) + logProduct + Math.log(prior);
        double logOther = k * Math.log((double) n * k) + Math.log1p(-prior);
        return 1 / (1 + Math.exp(logOther - logMember));
    }

    static void checkAlpha(double alpha) {
        if (!(alpha > 0) || Double.isInfinite(alpha)) {
            throw new IllegalArgumentException("α must be positive and finite, got " + alpha);
        }
    }

    static void checkPrior(double prior) {
        if (!(prior >= 0 && prior <= 1)) {
            throw new IllegalArgumentException("a-priori probability must be in [0, 1], got " + prior);
        }
    }
}
