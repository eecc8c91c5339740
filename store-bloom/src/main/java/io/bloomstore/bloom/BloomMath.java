package io.bloomstore.bloom;

/**
 * The Bloom filter arithmetic in one place. Every method states its formula; n is the
 * number of keys, m the number of bits, k the number of probes, p the false-positive rate.
 *
 * <p>Cheat sheet (from the seeds):
 * <pre>
 *   p(m, n, k)     = (1 − e^(−kn/m))^k          false-positive rate of a standard filter
 *   p1(m, n)       = 1 − e^(−n/m)               one-bit hash table (k = 1)
 *   k*(m, n)       = (m/n) · ln 2               optimal probe count; half the bits end up set
 *   p(k*)          = 2^(−k*) = e^(−(ln 2)²·m/n) ≈ 0.6185^(m/n)
 *   m(n, p)        = −n · ln p / (ln 2)²        bits for n keys at rate p (≈ 9.6 n for 1%)
 *   P_0 = ε_0,  P_h = ε_h · (1 − (1 − P_(h−1))²)  Rosetta: an empty dyadic interval of height h passes
 *                                               level h's filter and then one of its two halves
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
public final class BloomMath {
    /** (ln 2)². */
    public static final double LN2_SQUARED = Math.log(2) * Math.log(2);
    /** e^(−(ln 2)²), the base of the seeds' 0.6185^(m/n) rule. */
    public static final double OPTIMAL_FPR_BASE = Math.exp(-LN2_SQUARED);

    private BloomMath() {
    }

    /** Optimal number of probes, k = round((m/n)·ln 2), at least 1. */
    public static int optimalK(long m, long n) {
        checkPositive("m", m);
        checkPositive("n", n);
        return (int) Math.max(1, Math.round((double) m / n * Math.log(2)));
    }

    /** Optimal number of probes for a bits-per-key budget, round(b·ln 2), at least 1. */
    public static int optimalK(double bitsPerKey) {
        if (!(bitsPerKey > 0)) {
            throw new IllegalArgumentException("bits per key must be positive: " + bitsPerKey);
        }
        return (int) Math.max(1, Math.round(bitsPerKey * Math.log(2)));
    }

    /** Bits needed for n keys at false-positive rate p: m = ⌈−n·ln p / (ln 2)²⌉. */
    public static long bitsFor(long n, double p) {
        checkPositive("n", n);
        checkRate(p);
        return (long) Math.ceil(-n * Math.log(p) / LN2_SQUARED);
    }

    /** Bits per key for rate p at the optimal k: −ln p / (ln 2)² (9.585 for 1%). */
    public static double bitsPerKeyFor(double p) {
        checkRate(p);
        return -Math.log(p) / LN2_SQUARED;
    }

    /** False-positive rate of a standard Bloom filter: (1 − e^(−kn/m))^k. */
    public static double fpr(long m, long n, int k) {
        checkPositive("m", m);
        if (n < 0 || k < 1) {
            throw new IllegalArgumentException("need n >= 0 and k >= 1, got n=" + n + ", k=" + k);
        }
        return Math.pow(-Math.expm1(-(double) k * n / m), k);
    }

    /** False-positive rate of a one-bit hash table (k = 1): 1 − e^(−n/m). */
    public static double oneBitFpr(long m, long n) {
        return fpr(m, n, 1);
    }

    /** The rate at the optimal k as the seeds state it: 0.6185^(m/n), exactly e^(−(ln 2)²·m/n). */
    public static double fprAtOptimalK(double bitsPerKey) {
        return Math.pow(OPTIMAL_FPR_BASE, bitsPerKey);
    }

    /**
     * False-positive rate of a cache-line-blocked filter with blocks of {@code blockBits}
     * bits: keys fall into blocks as a Poisson process with mean λ = n·B/m, and a block
     * holding j keys answers falsely with (1 − e^(−kj/B))^k. Summed over j:
     * Σ_j Poisson(j; λ) · (1 − e^(−kj/B))^k. Always a little above the standard filter's rate.
     */
    public static double blockedFpr(long m, long n, int k, int blockBits) {
        checkPositive("m", m);
        long blocks = Math.max(1, m / blockBits);
        double lambda = (double) n / blocks;
        int jMax = (int) Math.ceil(lambda + 12 * Math.sqrt(lambda + 1) + 20);
        double sum = 0;
        double logFactorial = 0;
        for (int j = 0; j <= jMax; j++) {
            if (j > 0) {
                logFactorial += Math.log(j);
            }
            double logPoisson = (lambda == 0 ? (j == 0 ? 0 : Double.NEGATIVE_INFINITY) : -lambda + j * Math.log(lambda)) - logFactorial;
            double inBlock = Math.pow(-Math.expm1(-(double) k * j / blockBits), k);
            sum += Math.exp(logPoisson) * inBlock;
        }
        return Math.min(1.0, sum);
    }

    /**
     * Rosetta's false-positive rate of one empty dyadic interval of 2^h values, for each height h,
     * from the false-positive rates ε_h of its per-level filters (1 for a level without a filter):
     * P_0 = ε_0 and P_h = ε_h · (1 − (1 − P_(h−1))²). The interval is probed at its own level and,
     * when that says "maybe", doubted through both halves down to single values; the probes are of
     * distinct absent prefixes, so under the usual independence assumption they fail independently.
     */
    public static double[] dyadicFpr(double[] levelFpr) {
        double[] p = new double[levelFpr.length];
        for (int h = 0; h < p.length; h++) {
            double below = h == 0 ? 1.0 : 1 - (1 - p[h - 1]) * (1 - p[h - 1]);
            p[h] = levelFpr[h] * below;
        }
        return p;
    }

    /** Lower bound on bits per key of any filter with rate p: log2(1/p) (6.64 for 1%). */
    public static double informationBound(double p) {
        checkRate(p);
        return Math.log(1 / p) / Math.log(2);
    }

    static void checkPositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    static void checkRate(double p) {
        if (!(p > 0 && p < 1)) {
            throw new IllegalArgumentException("false-positive rate must be in (0, 1), got " + p);
        }
    }
}
