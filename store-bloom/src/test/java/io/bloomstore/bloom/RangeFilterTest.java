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
 * The range filter's promises, measured: no false negative for any range holding a value; the
 * false-positive rate of empty ranges of ℓ values against the theory ℓ·n/r ≈ ℓ/2^(B−2), for
 * uniform queries and for correlated ones (a range starting just past a stored value, on densely
 * clustered values); the same correlated queries against a prefix Bloom filter over value / 2^16
 * at the same bits per value (the structure RocksDB's prefix filters amount to), which cannot tell
 * them apart from the stored value; and point queries against a standard Bloom filter at the same
 * bits. Tolerance of each rate check: expected count + 4σ + 5; seed fixed (printed).
 */
class RangeFilterTest {
    private static final long SEED = 20261123L;
    private static final int N = 50_000;
    private static final int QUERIES = 60_000;

    @TempDir
    Path dir;

    /** Values 4096 apart with up to 1024 of jitter: 16 per 2^16 block, gaps of at least 2048. */
    private static long[] dense(SplittableRandom rnd) {
        return RangeValues.spaced(rnd, N, 4096, 1024);
    }

    private static long[] uniform(SplittableRandom rnd) {
        return RangeValues.uniform(rnd, N);
    }

    @Test
    void noFalseNegativeForAnyRangeHoldingAValue() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        for (long[] values : new long[][] {dense(rnd), uniform(rnd)}) {
            for (int blockBits : new int[] {0, 8, 16}) {
                try (RangeFilter f = RangeFilter.build(values, values.length, 12, blockBits, SEED, Storage.HEAP)) {
                    long max = f.maxRange();
                    for (long v : values) {
                        assertTrue(f.mightContainHash(v), "point " + v);
                        long before = max == 1 ? 0 : rnd.nextLong(max);
                        long after = max - 1 - before == 0 ? 0 : rnd.nextLong(max - before);
                        long from = Long.compareUnsigned(v, before) >= 0 ? v - before : 0;
                        long to = Long.compareUnsigned(v + after, v) >= 0 ? v + after : -1L;
                        assertTrue(f.mightContainRange(from, to), "range [" + from + ", " + to + "] holds " + v
                                + " (L = 2^" + blockBits + ")");
                    }
                }
            }
        }
    }

    @Test
    void emptyRangeRatesFollowTheoryForUniformAndCorrelatedQueries() {
        SplittableRandom rnd = new SplittableRandom(SEED + 1);
        long[] uniform = uniform(rnd);
        long[] dense = dense(rnd);
        NavigableSet<Long> uniformSet = RangeValues.unsignedSet(uniform);
        NavigableSet<Long> denseSet = RangeValues.unsignedSet(dense);
        System.out.printf(Locale.ROOT, "range filter, n = %d, L = 2^16, seed %d%n", N, SEED);
        System.out.printf(Locale.ROOT, "%-4s %-22s %8s %12s %12s %12s%n", "B", "queries", "range", "measured",
                "theory", "bits/value");
        for (int bits : new int[] {10, 16, 22, 26}) {
            try (RangeFilter fu = RangeFilter.build(uniform, N, bits, 16, SEED, Storage.HEAP);
                 RangeFilter fd = RangeFilter.build(dense, N, bits, 16, SEED, Storage.HEAP)) {
                for (long len : new long[] {1, 16, 256, 1024, 65536}) {
                    check("uniform", fu, uniformSet, len, bits, rnd, false);
                    if (len <= 1024) {
                        check("correlated (dense)", fd, denseSet, len, bits, rnd, true);
                    }
                }
            }
        }
    }

    private static void check(String what, RangeFilter f, NavigableSet<Long> set, long len, int bits,
                              SplittableRandom rnd, boolean correlated) {
        Long[] stored = correlated ? set.toArray(new Long[0]) : null;
        int empty = 0;
        int positives = 0;
        while (empty < QUERIES) {
            long from = correlated ? stored[rnd.nextInt(stored.length)] + 1 : rnd.nextLong();
            long to = from + len - 1;
            if (Long.compareUnsigned(to, from) < 0 || RangeValues.holds(set, from, to)) {
                continue;
            }
            empty++;
            positives += f.mightContainRange(from, to) ? 1 : 0;
        }
        double theory = Math.min(1.0, len * f.expectedFpp());
        double measured = (double) positives / empty;
        System.out.printf(Locale.ROOT, "%-4d %-22s %8d %12.6f %12.6f %12.2f%n", bits, what, len, measured, theory,
                (double) f.bitSize() / N);
        double expected = theory * empty;
        assertTrue(positives <= expected + 4 * Math.sqrt(expected) + 5, what + " ranges of " + len + " at " + bits
                + " bits/value: " + positives + " false positives in " + empty + ", theory " + expected);
        assertTrue((double) f.bitSize() / N <= bits + 0.5, "space " + f.bitSize() + " bits for " + N + " values");
    }

    @Test
    void correlatedQueriesDefeatAPrefixBloomFilterButNotTheRangeFilter() {
        SplittableRandom rnd = new SplittableRandom(SEED + 2);
        long[] dense = dense(rnd);
        NavigableSet<Long> set = RangeValues.unsignedSet(dense);
        long[] blockHashes = new long[N];
        for (int i = 0; i < N; i++) {
            blockHashes[i] = dense[i] >>> 16;
        }
        int bits = 16;
        try (MembershipFilter prefixBloom = Filters.build(FilterKind.BLOOM, bits, blockHashes, N, Storage.HEAP);
             RangeFilter range = RangeFilter.build(dense, N, bits, 16, SEED, Storage.HEAP)) {
            int queries = 0;
            int bloomPositives = 0;
            int rangePositives = 0;
            Long[] stored = set.toArray(new Long[0]);
            while (queries < QUERIES) {
                long from = stored[rnd.nextInt(stored.length)] + 1;
                long to = from + 15;
                if (RangeValues.holds(set, from, to) || (from >>> 16) != (to >>> 16)) {
                    continue;
                }
                queries++;
                bloomPositives += prefixBloom.mightContainHash(from >>> 16) ? 1 : 0;
                rangePositives += range.mightContainRange(from, to) ? 1 : 0;
            }
            System.out.printf(Locale.ROOT, "correlated ranges of 16 just past a value, %d bits/value: prefix Bloom "
                    + "FPR %.4f, range filter FPR %.6f (theory %.6f)%n", bits, (double) bloomPositives / queries,
                    (double) rangePositives / queries, 16 * range.expectedFpp());
            assertEquals(queries, bloomPositives, "the prefix filter holds the query's own block: always maybe");
            assertTrue(rangePositives < queries * 16 * range.expectedFpp() * 2 + 10);
        }
    }

    @Test
    void pointQueriesBeatABloomFilterAtTheSameBits() {
        SplittableRandom rnd = new SplittableRandom(SEED + 3);
        long[] values = uniform(rnd);
        NavigableSet<Long> set = RangeValues.unsignedSet(values);
        for (int bits : new int[] {8, 10, 16}) {
            try (RangeFilter range = RangeFilter.build(values, N, bits, 16, SEED, Storage.HEAP);
                 MembershipFilter bloom = Filters.build(FilterKind.BLOOM, bits, values, N, Storage.HEAP)) {
                int rangeFp = 0;
                int bloomFp = 0;
                int queries = 0;
                while (queries < 200_000) {
                    long x = rnd.nextLong();
                    if (set.contains(x)) {
                        continue;
                    }
                    queries++;
                    rangeFp += range.mightContainHash(x) ? 1 : 0;
                    bloomFp += bloom.mightContainHash(x) ? 1 : 0;
                }
                double rangeRate = (double) rangeFp / queries;
                double bloomRate = (double) bloomFp / queries;
                System.out.printf(Locale.ROOT, "point queries at %d bits/value: range filter %.5f (theory %.5f, "
                        + "%.2f bits/value), Bloom %.5f (theory %.5f)%n", bits, rangeRate, range.expectedFpp(),
                        (double) range.bitSize() / N, bloomRate, BloomMath.fprAtOptimalK(bits));
                double expected = range.expectedFpp() * queries;
                assertTrue(rangeFp <= expected + 4 * Math.sqrt(expected) + 5, "range point FPR " + rangeRate);
            }
        }
    }

    @Test
    void writtenAndMappedItAnswersTheSame() throws IOException {
        SplittableRandom rnd = new SplittableRandom(SEED + 4);
        long[] values = dense(rnd);
        Path file = dir.resolve("range.filter");
        try (RangeFilter f = RangeFilter.build(values, N, 14, 16, SEED, Storage.HEAP)) {
            FilterFile.write(f, file);
            try (MembershipFilter mapped = FilterFile.open(file)) {
                RangeFilter g = (RangeFilter) mapped;
                assertEquals(f.header(), g.header());
                for (int i = 0; i < 20_000; i++) {
                    long from = rnd.nextBoolean() ? values[rnd.nextInt(N)] + rnd.nextInt(2048) - 1024 : rnd.nextLong();
                    long to = from + rnd.nextInt(1 << 16);
                    assertEquals(f.mightContainRange(from, to), g.mightContainRange(from, to));
                }
            }
        }
    }

    @Test
    void argumentsAreChecked() {
        long[] v = {1, 2, 3};
        assertThrows(IllegalArgumentException.class, () -> RangeFilter.build(v, 0, 10, 16, 0, Storage.HEAP));
        assertThrows(IllegalArgumentException.class, () -> RangeFilter.build(v, 3, 2, 16, 0, Storage.HEAP));
        assertThrows(IllegalArgumentException.class, () -> RangeFilter.build(v, 3, 10, 41, 0, Storage.HEAP));
        try (RangeFilter f = RangeFilter.build(v, 3, 10, 4, 0, Storage.HEAP)) {
            assertTrue(f.mightContainRange(100, 100 + 16), "a range over L values cannot be answered: maybe");
            assertTrue(f.mightContainRange(5, 4), "a reversed range: maybe");
            assertThrows(UnsupportedOperationException.class, () -> f.addHash(7));
        }
        assertEquals(0x6162000000000000L, RangeFilter.keyValue(new byte[] {'a', 'b'}));
        assertEquals(0x0102030405060708L, RangeFilter.keyValue(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    }
}
