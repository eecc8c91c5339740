package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.NavigableSet;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.Storage;

/**
 * Rosetta's promises: no false negative for any range holding a value (a property test over random
 * values, shapes and ranges; its seed is printed and can be replayed with
 * {@code -Dbloomstore.seed=S}); false-positive rates of empty ranges that follow the model
 * ({@link RosettaFilter#modelFpr}, averaged over the very queries asked) for uniform and for
 * correlated queries, with seed {@value #SEED} and a tolerance of 4σ + 5 either side of the
 * expected count; and the memory split's limit cases.
 */
class RosettaFilterTest {
    private static final long SEED = 20261124L;
    private static final int N = 50_000;
    private static final int QUERIES = 20_000;

    @TempDir
    Path dir;

    /** Values 8192 apart with up to 2048 of jitter: gaps of at least 6144, 8 per 2^16 block. */
    static long[] clustered(SplittableRandom rnd, int n) {
        return RangeValues.spaced(rnd, n, 8192, 2048);
    }

    @Test
    void noFalseNegativeForAnyRangeHoldingAValue() {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("RosettaFilterTest.noFalseNegativeForAnyRangeHoldingAValue seed " + seed
                + " (replay with -Dbloomstore.seed=" + seed + ")");
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 24; round++) {
            int n = 1 + rnd.nextInt(round < 4 ? 50 : 5000);
            long[] values = switch (round % 4) {
                case 0 -> RangeValues.uniform(rnd, n);
                case 1 -> clustered(rnd, n);
                case 2 -> smallDomain(rnd, n);
                default -> extremes(rnd, n);
            };
            int rangeBits = rnd.nextInt(25);
            double bits = 1 + rnd.nextDouble() * 23;
            try (RosettaFilter f = RosettaFilter.build(values, n, bits, rangeBits, rnd.nextLong(),
                    rnd.nextBoolean() ? Storage.HEAP : Storage.NATIVE)) {
                String shape = "seed " + seed + ", round " + round + ", n " + n + ", H " + rangeBits + ", bits "
                        + bits + ": " + f;
                for (int q = 0; q < 2000; q++) {
                    long v = values[rnd.nextInt(n)];
                    long span = rnd.nextLong(f.maxRange());
                    long before = span == 0 ? 0 : rnd.nextLong(span + 1);
                    long from = Long.compareUnsigned(v, before) >= 0 ? v - before : 0;
                    long to = Long.compareUnsigned(from + span, from) >= 0 ? from + span : -1L;
                    if (Long.compareUnsigned(to, v) < 0) {
                        to = v;
                    }
                    assertTrue(f.mightContainRange(from, to), "range [" + Long.toUnsignedString(from) + ", "
                            + Long.toUnsignedString(to) + "] holds " + Long.toUnsignedString(v) + "; " + shape);
                    assertTrue(f.mightContainHash(v), "point " + Long.toUnsignedString(v) + "; " + shape);
                }
            }
        }
    }

    /** Values of a small domain with repeats: every prefix level is crowded. */
    private static long[] smallDomain(SplittableRandom rnd, int n) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextInt(4 * n + 1);
        }
        return v;
    }

    /** Values next to 0 and 2^64 − 1, where intervals meet the ends of the value space. */
    private static long[] extremes(SplittableRandom rnd, int n) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            long off = rnd.nextInt(1 << 20);
            v[i] = rnd.nextBoolean() ? off : -1L - off;
        }
        return v;
    }

    @Test
    void emptyRangeRatesFollowTheModelForUniformAndCorrelatedQueries() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        long[] uniform = RangeValues.uniform(rnd, N);
        long[] clustered = clustered(rnd, N);
        NavigableSet<Long> uniformSet = RangeValues.unsignedSet(uniform);
        NavigableSet<Long> clusteredSet = RangeValues.unsignedSet(clustered);
        Long[] stored = clusteredSet.toArray(new Long[0]);
        System.out.printf(Locale.ROOT, "Rosetta, n = %d, H = 16, seed %d%n", N, SEED);
        System.out.printf(Locale.ROOT, "%-4s %-11s %6s %10s %10s %10s%n", "B", "queries", "range", "measured", "model",
                "bits/value");
        for (int bits : new int[] {10, 16, 22}) {
            try (RosettaFilter fu = RosettaFilter.build(uniform, N, bits, 16, SEED, Storage.NATIVE);
                 RosettaFilter fc = RosettaFilter.build(clustered, N, bits, 16, SEED, Storage.NATIVE)) {
                System.out.println("uniform values:   " + fu);
                System.out.println("clustered values: " + fc);
                for (long len : new long[] {1, 16, 256, 4096}) {
                    check("uniform", fu, uniformSet, null, len, bits, rnd);
                    check("correlated", fc, clusteredSet, stored, len, bits, rnd);
                }
            }
        }
    }

    private static void check(String what, RosettaFilter f, NavigableSet<Long> set, Long[] stored, long len, int bits,
                              SplittableRandom rnd) {
        int empty = 0;
        int positives = 0;
        double expected = 0;
        while (empty < QUERIES) {
            long from = stored != null ? stored[rnd.nextInt(stored.length)] + 1 : rnd.nextLong();
            long to = from + len - 1;
            if (Long.compareUnsigned(to, from) < 0 || RangeValues.holds(set, from, to)) {
                continue;
            }
            empty++;
            positives += f.mightContainRange(from, to) ? 1 : 0;
            expected += f.modelFpr(from, to);
        }
        double sigma = Math.sqrt(expected * Math.max(0, 1 - expected / empty));
        System.out.printf(Locale.ROOT, "%-4d %-11s %6d %10.6f %10.6f %10.2f%n", bits, what, len,
                (double) positives / empty, expected / empty, (double) f.bitSize() / N);
        assertTrue(Math.abs(positives - expected) <= 4 * sigma + 5, what + " ranges of " + len + " at " + bits
                + " bits/value: " + positives + " false positives in " + empty + ", model " + expected + "; " + f);
        assertTrue(f.bitSize() <= (long) bits * N + 64L * f.levels(), "space " + f.bitSize() + " bits for " + N);
    }

    @Test
    void withOneLevelItIsABloomFilterAtTheSameBits() {
        SplittableRandom rnd = new SplittableRandom(SEED + 1);
        long[] values = RangeValues.uniform(rnd, N);
        NavigableSet<Long> set = RangeValues.unsignedSet(values);
        try (RosettaFilter f = RosettaFilter.build(values, N, 10, 0, SEED, Storage.HEAP)) {
            assertEquals(1, f.levels());
            assertEquals(10L * N, f.levelBits(0));
            assertEquals(7, f.levelK(0));
            assertEquals(BloomMath.fpr(10L * N, N, 7), f.expectedFpp(), 1e-12);
            int fp = 0;
            int queries = 0;
            while (queries < 200_000) {
                long x = rnd.nextLong();
                if (!set.contains(x)) {
                    queries++;
                    fp += f.mightContainHash(x) ? 1 : 0;
                }
            }
            double expected = f.expectedFpp() * queries;
            assertTrue(Math.abs(fp - expected) <= 4 * Math.sqrt(expected) + 5, fp + " point false positives, "
                    + "expected " + expected);
            assertTrue(f.mightContainRange(5, 7), "a range over more than 2^0 values cannot be answered: maybe");
        }
    }

    @Test
    void theSplitFavoursLevelZeroAndUsesTheWholeBudget() {
        long[] keys = new long[17];
        long n = 100_000;
        for (int h = 0; h < keys.length; h++) {
            keys[h] = n;
        }
        for (int bits : new int[] {10, 16, 22}) {
            long[] split = RosettaFilter.allocate(keys, bits * n);
            long sum = 0;
            for (int h = 0; h < split.length; h++) {
                sum += split[h];
                assertTrue(split[0] >= split[h], "level 0 gets the most bits: " + java.util.Arrays.toString(split));
            }
            assertEquals(bits * n, sum);
        }
        // A level of one prefix costs almost nothing to make exact: the split gives it a step.
        keys[16] = 1;
        long[] split = RosettaFilter.allocate(keys, 16 * n);
        assertTrue(split[16] > 0, java.util.Arrays.toString(split));
    }

    @Test
    void modelMatchesTheRecursion() {
        double[] p = BloomMath.dyadicFpr(new double[] {0.01, 0.5, 1.0});
        assertEquals(0.01, p[0], 1e-15);
        assertEquals(0.5 * (1 - 0.99 * 0.99), p[1], 1e-15);
        assertEquals(1 - (1 - p[1]) * (1 - p[1]), p[2], 1e-15);
    }

    @Test
    void writtenAndMappedItAnswersTheSame() throws IOException {
        SplittableRandom rnd = new SplittableRandom(SEED + 2);
        long[] values = clustered(rnd, N);
        Path file = dir.resolve("rosetta.filter");
        try (RosettaFilter f = RosettaFilter.build(values, N, 14, 16, SEED, Storage.NATIVE)) {
            assertTrue(f.isOffHeap());
            FilterFile.write(f, file);
            try (MembershipFilter mapped = FilterFile.open(file)) {
                RosettaFilter g = (RosettaFilter) mapped;
                assertTrue(g.isOffHeap());
                assertEquals(f.header(), g.header());
                assertEquals(f.expectedFpp(), g.expectedFpp());
                for (int i = 0; i < 20_000; i++) {
                    long from = rnd.nextBoolean() ? values[rnd.nextInt(N)] + rnd.nextInt(4096) - 2048 : rnd.nextLong();
                    long to = from + rnd.nextInt(1 << 16);
                    assertEquals(f.mightContainRange(from, to), g.mightContainRange(from, to));
                    assertEquals(f.mightContainHash(from), g.mightContainHash(from));
                }
            }
            assertEquals(FilterKind.ROSETTA, FilterFile.verify(file).kind());
        }
    }

    @Test
    void argumentsAreChecked() {
        long[] v = {1, 2, 3};
        assertThrows(IllegalArgumentException.class, () -> RosettaFilter.build(v, 0, 10, 16, 0, Storage.HEAP));
        assertThrows(IllegalArgumentException.class, () -> RosettaFilter.build(v, 3, 0.5, 16, 0, Storage.HEAP));
        assertThrows(IllegalArgumentException.class, () -> RosettaFilter.build(v, 3, 10, 41, 0, Storage.HEAP));
        try (RosettaFilter f = RosettaFilter.build(v, 3, 10, 4, 0, Storage.HEAP)) {
            assertTrue(f.mightContainRange(100, 100 + 16), "a range over 2^H values cannot be answered: maybe");
            assertTrue(f.mightContainRange(5, 4), "a reversed range: maybe");
            assertEquals(1.0, f.modelFpr(100, 100 + 16));
            assertThrows(UnsupportedOperationException.class, () -> f.addHash(7));
        }
        assertThrows(IllegalArgumentException.class, () -> Filters.build(FilterKind.ROSETTA, 10, v, 3, Storage.HEAP));
    }
}
