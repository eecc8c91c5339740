package io.bloomstore.cli.family;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import io.bloomstore.bloom.BloomFilter;
import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.HashStrategy;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.bloom.RosettaFilter;
import io.bloomstore.bloom.storage.Storage;

/**
 * Issue 14's comparison of range filters at the same memory: the Grafite-style {@link RangeFilter}
 * (what the store's tables use), {@link RosettaFilter}, and for point queries a standard
 * {@link BloomFilter}, each measured against its theory.
 *
 * <p>Workload, all from one seeded {@link SplittableRandom}: {@code keys} 64-bit values, either
 * uniform, or clustered (spaced S = max(8192, 2·longest range) apart with up to S/4 of jitter,
 * so every gap exceeds the longest range). For each bits per key B and range length R:
 * {@code queries} empty ranges [a, a + R − 1], "uniform" (a uniform over the uniform values'
 * space, non-empty ranges redrawn) or "correlated" (a = a clustered value + 1: the range starts
 * just past a stored value, the case that defeats prefix Bloom filters). Every filter answers the
 * same ranges; every "maybe" is a false positive.
 *
 * <p>Theory: for Grafite 1 − e^(−R·n/r), r its code space (R·n/r = R × {@link RangeFilter#expectedFpp}
 * is the bound the paper proves; the n codes of other blocks fall into the query's R codes as a
 * Poisson process); for Rosetta its model, the mean over the queries of {@link RosettaFilter#modelFpr};
 * for Bloom (1 − e^(−kn/m))^k. The Bloom filter hashes with seed + 1, so it is not Rosetta's level 0
 * (the same filter, which would answer identically).
 *
 * <p>Thread safety: stateless; each run builds its own filters.
 */
public final class RangeFilterExperiment {
    /** Experiment parameters. */
    public record Config(int keys, long seed, int[] bits, long[] lengths, int queries, int rangeBits) {
        public Config {
            if (keys < 2 || queries < 1 || bits.length == 0 || lengths.length == 0) {
                throw new IllegalArgumentException("need at least 2 keys, 1 query, one bits value and one length");
            }
            if (rangeBits < 0 || rangeBits > 20) {
                throw new IllegalArgumentException("range bits must be 0..20: " + rangeBits);
            }
            for (int b : bits) {
                if (b < 3 || b > RangeFilter.MAX_BITS_PER_VALUE) {
                    throw new IllegalArgumentException("bits per key must be 3.." + RangeFilter.MAX_BITS_PER_VALUE
                            + ": " + b);
                }
            }
            for (long r : lengths) {
                if (r < 1 || r > (1L << rangeBits)) {
                    throw new IllegalArgumentException("range lengths must be 1..2^" + rangeBits + " (the longest "
                            + "range the filters answer): " + r);
                }
            }
        }
    }

    /** One filter's answers to one cell's queries. */
    public record Row(int bits, String queries, long length, String filter, long falsePositives, long asked,
                      double theory, double bitsPerKey) {
        public double fpr() {
            return (double) falsePositives / asked;
        }
    }

    /** The rows, and how each Rosetta split its bits (bits per prefix, level 0 first) per B and key set. */
    public record Result(List<Row> rows, List<String> rosettaSplits) {
    }

    private static final HashStrategy BLOOM_HASH = HashStrategy.XXH3_64;

    private RangeFilterExperiment() {
    }

    public static Result run(Config c) {
        SplittableRandom rnd = new SplittableRandom(c.seed());
        long longest = Arrays.stream(c.lengths()).max().getAsLong();
        long[] uniform = new long[c.keys()];
        for (int i = 0; i < uniform.length; i++) {
            uniform[i] = rnd.nextLong();
        }
        long spacing = Math.max(8192, 2 * longest);
        long[] clustered = new long[c.keys()];
        long base = rnd.nextLong() >>> 8;
        for (int i = 0; i < clustered.length; i++) {
            clustered[i] = base + spacing * i + rnd.nextLong(spacing / 4);
        }
        List<Row> rows = new ArrayList<>();
        List<String> splits = new ArrayList<>();
        for (int b : c.bits()) {
            measure(c, b, "uniform", uniform, false, rnd, rows, splits);
            measure(c, b, "correlated", clustered, true, rnd, rows, splits);
        }
        return new Result(rows, splits);
    }

    private static void measure(Config c, int bits, String kind, long[] values, boolean correlated,
                                SplittableRandom rnd, List<Row> rows, List<String> splits) {
        long[] sorted = unsignedSorted(values);
        long n = values.length;
        net.openhft.hashing.LongHashFunction bloomHash = BLOOM_HASH.function(c.seed() + 1);
        try (RangeFilter grafite = RangeFilter.build(values, values.length, bits, c.rangeBits(), c.seed(),
                Storage.NATIVE);
             RosettaFilter rosetta = RosettaFilter.build(values, values.length, bits, c.rangeBits(), c.seed(),
                     Storage.NATIVE);
             BloomFilter bloom = BloomFilter.create(Math.max(64, bits * n), BloomMath.optimalK(bits),
                     BLOOM_HASH, c.seed() + 1, Storage.NATIVE)) {
            for (long v : values) {
                bloom.addHash(bloomHash.hashLong(v));
            }
            splits.add(bits + " bits/key, " + kind + " values: " + levelSplit(rosetta));
            for (long len : c.lengths()) {
                long gFp = 0;
                long rFp = 0;
                long bFp = 0;
                double rModel = 0;
                int asked = 0;
                while (asked < c.queries()) {
                    long from = correlated ? values[rnd.nextInt(values.length)] + 1 : rnd.nextLong();
                    long to = from + len - 1;
                    if (Long.compareUnsigned(to, from) < 0 || holds(sorted, from, to)) {
                        continue;
                    }
                    asked++;
                    gFp += grafite.mightContainRange(from, to) ? 1 : 0;
                    rFp += rosetta.mightContainRange(from, to) ? 1 : 0;
                    rModel += rosetta.modelFpr(from, to);
                    if (len == 1) {
                        bFp += bloom.mightContainHash(bloomHash.hashLong(from)) ? 1 : 0;
                    }
                }
                rows.add(new Row(bits, kind, len, "grafite", gFp, asked, -Math.expm1(-len * grafite.expectedFpp()),
                        (double) grafite.bitSize() / n));
                rows.add(new Row(bits, kind, len, "rosetta", rFp, asked, rModel / asked,
                        (double) rosetta.bitSize() / n));
                if (len == 1) {
                    rows.add(new Row(bits, kind, len, "bloom", bFp, asked, bloom.expectedFpp(),
                            (double) bloom.bitSize() / n));
                }
            }
        }
    }

    /** Rosetta's bits per prefix, level 0 first; levels without bits as 0. */
    static String levelSplit(RosettaFilter f) {
        StringBuilder s = new StringBuilder("Rosetta bits/prefix by level");
        for (int h = 0; h < f.levels(); h++) {
            double per = f.levelKeys(h) == 0 ? 0 : (double) f.levelBits(h) / f.levelKeys(h);
            s.append(h == 0 ? " " : ", ").append(per == 0 ? "0" : String.format(java.util.Locale.ROOT, "%.2f", per));
        }
        return s.toString();
    }

    private static long[] unsignedSorted(long[] values) {
        long[] s = new long[values.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = values[i] ^ Long.MIN_VALUE;
        }
        Arrays.sort(s);
        return s;
    }

    /** Whether a value of {@code sorted} (sign-flipped, sorted) lies in [from, to], unsigned. */
    private static boolean holds(long[] sorted, long from, long to) {
        int i = Arrays.binarySearch(sorted, from ^ Long.MIN_VALUE);
        if (i >= 0) {
            return true;
        }
        int next = -i - 1;
        return next < sorted.length && Long.compareUnsigned(sorted[next] ^ Long.MIN_VALUE, to) <= 0;
    }
}
