package io.bloomstore.cli.bench;

import java.util.SplittableRandom;

/**
 * Chooses the key index of each lookup or update: uniformly over {@code [0, keys)}, or zipfian
 * with the usual constant θ = 0.99 (YCSB's and db_bench's), where the key of popularity rank
 * r (0 the most popular) is asked for with probability ∝ 1/(r+1)^θ.
 *
 * <p>Zipfian ranks come from the rejection-free method of Gray et al., "Quickly Generating
 * Billion-Record Synthetic Databases" (SIGMOD 1994), which YCSB also uses:
 * <pre>
 *   ζ(n) = Σ_{i=1..n} 1/i^θ,   α = 1/(1−θ),   η = (1 − (2/n)^(1−θ)) / (1 − ζ(2)/ζ(n))
 *   u uniform in [0,1):  u·ζ(n) &lt; 1 → rank 0;  &lt; 1 + 0.5^θ → rank 1;  else ⌊n·(η·u − η + 1)^α⌋
 * </pre>
 * A rank is then scattered over the key space by a bijective 64-bit mix reduced modulo n, so
 * the hot keys are not the smallest ones and land in many tables and blocks (YCSB's scrambled
 * zipfian). Two ranks may map to one key; the skew stays.
 *
 * <p>Thread safety: immutable; each thread passes its own random source.
 */
public final class KeyChooser {
    /** The zipfian constant of YCSB and db_bench. */
    public static final double ZIPFIAN_THETA = 0.99;

    private final int keys;
    private final boolean zipfian;
    private final double zetaN;
    private final double alpha;
    private final double eta;
    private final double secondRankBound;

    private KeyChooser(int keys, boolean zipfian) {
        if (keys <= 0) {
            throw new IllegalArgumentException("keys must be positive: " + keys);
        }
        this.keys = keys;
        this.zipfian = zipfian;
        if (zipfian) {
            double theta = ZIPFIAN_THETA;
            zetaN = zeta(keys, theta);
            double zeta2 = zeta(Math.min(2, keys), theta);
            alpha = 1 / (1 - theta);
            eta = keys < 2 ? 0 : (1 - Math.pow(2.0 / keys, 1 - theta)) / (1 - zeta2 / zetaN);
            secondRankBound = 1 + Math.pow(0.5, theta);
        } else {
            zetaN = alpha = eta = secondRankBound = 0;
        }
    }

    /**
     * A chooser over {@code keys} keys with the given distribution. For {@code LATEST} it chooses
     * as zipfian does, and {@link #next} is the index in load order counted from the newest:
     * the caller maps it onto its keys ({@link #recency}).
     */
    public static KeyChooser of(BenchConfig.Distribution distribution, int keys) {
        return new KeyChooser(keys, distribution != BenchConfig.Distribution.UNIFORM);
    }

    /**
     * A recency position for the {@code latest} distribution: 0 the newest, skewed zipfian toward
     * it (YCSB's latest generator: the most recently inserted keys are the most popular), not
     * scattered.
     */
    public long recency(SplittableRandom random) {
        return rank(random.nextDouble());
    }

    /** The next key index, in {@code [0, keys)}. */
    public int next(SplittableRandom random) {
        if (!zipfian) {
            return random.nextInt(keys);
        }
        return scatter(rank(random.nextDouble()));
    }

    /** The popularity rank for uniform {@code u}: 0 is the most popular. */
    long rank(double u) {
        double uz = u * zetaN;
        if (uz < 1) {
            return 0;
        }
        if (uz < secondRankBound) {
            return 1;
        }
        long r = (long) (keys * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(Math.max(r, 0), keys - 1);
    }

    private int scatter(long rank) {
        return (int) Long.remainderUnsigned(mix(rank), keys);
    }

    private static double zeta(long n, double theta) {
        double sum = 0;
        for (long i = 1; i <= n; i++) {
            sum += 1 / Math.pow(i, theta);
        }
        return sum;
    }

    /** SplitMix64's finaliser: a bijective scramble. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
