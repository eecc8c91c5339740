package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A static range filter over 64-bit values after Rosetta (Luo, Chatterjee, Ketsetsidis, Dayan,
 * Qin, Idreos, "Rosetta: A Robust Space-Time Optimized Range Filter for Key-Value Stores",
 * SIGMOD 2020): one Bloom filter per binary prefix length, so "may some value lie in [a, b]?"
 * for ranges of at most 2^H values, with no false negative.
 *
 * <p>How: level h (0 ≤ h ≤ H) is a Bloom filter of the distinct prefixes x >>> h of the stored
 * values; level 0 holds the values themselves. A query range is cut into its dyadic intervals
 * (at most two per height, each the set of values sharing one prefix); each interval is probed at
 * its own level and, when that says "maybe", doubted: both halves are probed one level down,
 * recursively, and the interval counts as "maybe" only if some path reaches level 0. A point query
 * is one probe of level 0. An empty interval of height h is a false positive with probability
 * P_h = ε_h · (1 − (1 − P_(h−1))²) ({@link BloomMath#dyadicFpr}), ε_h the rate of level h's filter,
 * and a range with probability 1 − Π (1 − P_h) over its intervals ({@link #modelFpr}).
 *
 * <p>Memory split: the paper tunes how the bits are spread over the levels to the workload. Here
 * the split is fixed at build time by a greedy search that hands out the budget, in multiples of
 * 1/1024th, to the level that most lowers Σ_h (H + 1 − h) · P_h per bit, the mean false-positive rate of an empty aligned
 * range of 2^r values with r uniform in 0..H (heights below r weighted by the ranges that reach
 * them), given each level's actual count of distinct prefixes. A level may get no bits: it then
 * answers "maybe" without a probe and its intervals are doubted directly, which costs probes, not
 * correctness.
 *
 * <p>Probes: level h hashes a prefix p with XXH3-64(p, seed + h·0x9E3779B97F4A7C15) and sets k_h
 * bits by double hashing as {@link BloomFilter} does.
 *
 * <p>Header use (docs/format/filter.md, kind 8): {@code k} = H + 1 levels, {@code m} = bits of all
 * levels, {@code n} = values, {@code seed}. Payload = per level two words (m_h; k_h | n_h &lt;&lt; 8),
 * then each level's bit array from a word boundary. Built filters keep their bits in the given
 * {@link Storage} (off-heap with {@link Storage#NATIVE}); opened ones are mapped. Only the per-level
 * table (a few longs per level) is on the heap.
 *
 * <p>A query trusts the payload: damage can flip answers, never loop or read outside it.
 *
 * <p>Thread safety: immutable once built; any number of concurrent queries.
 */
public final class RosettaFilter implements MembershipFilter {
    /** Highest level: ranges of up to 2^40 values. */
    public static final int MAX_RANGE_BITS = 40;
    /** Most bits per value. */
    public static final int MAX_BITS_PER_VALUE = 64;
    /** The budget is handed out in this many steps. */
    static final int ALLOCATION_STEPS = 1024;
    private static final int MAX_K = 32;

    private final BitStore words;
    private final long n;
    private final long seed;
    private final long[] levelBits;
    private final int[] levelK;
    private final long[] levelKeys;
    private final long[] levelBase;
    private final net.openhft.hashing.LongHashFunction[] hashers;
    private final double[] dyadic;

    private RosettaFilter(BitStore words, long n, long seed, long[] levelBits, int[] levelK, long[] levelKeys) {
        this.words = words;
        this.n = n;
        this.seed = seed;
        this.levelBits = levelBits;
        this.levelK = levelK;
        this.levelKeys = levelKeys;
        int levels = levelBits.length;
        this.levelBase = new long[levels];
        this.hashers = new net.openhft.hashing.LongHashFunction[levels];
        long word = 0;
        for (int h = 0; h < levels; h++) {
            levelBase[h] = word * 64;
            word += BitStore.wordsFor(levelBits[h]);
            hashers[h] = HashStrategy.XXH3_64.function(levelSeed(seed, h));
        }
        this.dyadic = BloomMath.dyadicFpr(levelFprs(levelBits, levelK, levelKeys));
    }

    /**
     * Builds a filter of {@code values[0..count)} (any order, repeats allowed) at
     * {@code bitsPerValue} bits per value in all, for ranges of up to 2^{@code rangeBits} values.
     */
    public static RosettaFilter build(long[] values, int count, double bitsPerValue, int rangeBits, long seed,
                                      Storage storage) {
        Objects.requireNonNull(storage, "storage");
        if (!(bitsPerValue >= 1 && bitsPerValue <= MAX_BITS_PER_VALUE)) {
            throw new IllegalArgumentException("Rosetta bits per value must be in [1, " + MAX_BITS_PER_VALUE + "]: "
                    + bitsPerValue);
        }
        if (rangeBits < 0 || rangeBits > MAX_RANGE_BITS) {
            throw new IllegalArgumentException("range bits must be in [0, " + MAX_RANGE_BITS + "]: " + rangeBits);
        }
        if (count < 1 || count > values.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + values.length);
        }
        long[] sorted = new long[count];
        for (int i = 0; i < count; i++) {
            sorted[i] = values[i] ^ Long.MIN_VALUE;
        }
        Arrays.sort(sorted);
        for (int i = 0; i < count; i++) {
            sorted[i] ^= Long.MIN_VALUE; // now in unsigned order, so x >>> h is non-decreasing
        }
        int levels = rangeBits + 1;
        long[] levelKeys = new long[levels];
        for (int h = 0; h < levels; h++) {
            levelKeys[h] = distinct(sorted, h);
        }
        long budget = Math.max(64, (long) Math.ceil(bitsPerValue * count));
        long[] levelBits = allocate(levelKeys, budget);
        int[] levelK = new int[levels];
        long totalWords = 0;
        for (int h = 0; h < levels; h++) {
            levelK[h] = probes(levelBits[h], levelKeys[h]);
            totalWords += BitStore.wordsFor(levelBits[h]);
        }
        RosettaFilter f = new RosettaFilter(storage.allocate(totalWords), count, seed, levelBits, levelK, levelKeys);
        for (int h = 0; h < levels; h++) {
            if (levelBits[h] == 0) {
                continue;
            }
            long previous = 0;
            for (int i = 0; i < count; i++) {
                long p = sorted[i] >>> h;
                if (i == 0 || p != previous) {
                    f.insert(h, p);
                }
                previous = p;
            }
        }
        return f;
    }

    /**
     * The greedy split of {@code budget} bits over the levels (see the class comment); package-private
     * for tests. Each round gives one level the amount (1, 2, 4, … steps of budget/1024) that lowers
     * the cost most per bit: a Bloom filter's rate hardly moves until it has about a bit per item, so
     * single steps alone would starve a crowded level. Level 0 always gets the first step.
     */
    static long[] allocate(long[] levelKeys, long budget) {
        int levels = levelKeys.length;
        long[] bits = new long[levels];
        long step = Math.max(64, (budget + ALLOCATION_STEPS - 1) / ALLOCATION_STEPS);
        long left = budget - Math.min(step, budget);
        bits[0] = budget - left;
        while (left > 0) {
            double now = cost(bits, levelKeys);
            int best = 0;
            long bestAmount = Math.min(step, left);
            double bestRate = 0;
            for (int h = 0; h < levels; h++) {
                for (long amount = step; ; amount *= 2) {
                    long a = Math.min(amount, left);
                    bits[h] += a;
                    double rate = (now - cost(bits, levelKeys)) / a;
                    bits[h] -= a;
                    if (rate > bestRate) {
                        bestRate = rate;
                        best = h;
                        bestAmount = a;
                    }
                    if (a == left) {
                        break;
                    }
                }
            }
            bits[best] += bestAmount;
            left -= bestAmount;
        }
        return bits;
    }

    /** Σ_h (H + 1 − h) · P_h: what {@link #allocate} minimises. */
    private static double cost(long[] bits, long[] levelKeys) {
        int[] k = new int[bits.length];
        for (int h = 0; h < bits.length; h++) {
            k[h] = probes(bits[h], levelKeys[h]);
        }
        double[] p = BloomMath.dyadicFpr(levelFprs(bits, k, levelKeys));
        double c = 0;
        for (int h = 0; h < p.length; h++) {
            c += (p.length - h) * p[h];
        }
        return c;
    }

    private static double[] levelFprs(long[] bits, int[] k, long[] keys) {
        double[] e = new double[bits.length];
        for (int h = 0; h < bits.length; h++) {
            e[h] = bits[h] == 0 ? 1.0 : keys[h] == 0 ? 0.0 : BloomMath.fpr(bits[h], keys[h], k[h]);
        }
        return e;
    }

    private static int probes(long bits, long keys) {
        return bits == 0 ? 0 : keys == 0 ? 1 : Math.min(MAX_K, BloomMath.optimalK(bits, keys));
    }

    private static long distinct(long[] sorted, int h) {
        long d = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || (sorted[i] >>> h) != (sorted[i - 1] >>> h)) {
                d++;
            }
        }
        return d;
    }

    private static long levelSeed(long seed, int h) {
        return seed + h * Probes.GOLDEN;
    }

    static RosettaFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        int levels = h.k();
        if (levels < 1 || levels > MAX_RANGE_BITS + 1 || h.aux() != 0 || h.aux2() != 0 || h.n() < 0) {
            throw new IllegalArgumentException("bad Rosetta shape: " + levels + " levels, aux " + h.aux() + ", aux2 "
                    + h.aux2() + ", n " + h.n());
        }
        long tableBytes = 16L * levels;
        if (payload.length() < tableBytes) {
            throw new IllegalArgumentException("Rosetta payload of " + payload.length() + " bytes cannot hold its "
                    + levels + "-level table");
        }
        long[] levelBits = new long[levels];
        int[] levelK = new int[levels];
        long[] levelKeys = new long[levels];
        long totalBits = 0;
        long totalWords = 0;
        for (int l = 0; l < levels; l++) {
            long m = payload.readLong(16L * l);
            long kn = payload.readLong(16L * l + 8);
            int k = (int) (kn & 0xFF);
            long keys = kn >>> 8;
            if (m < 0 || m > (1L << 46) || (m == 0 ? k != 0 : k < 1 || k > 64)) {
                throw new IllegalArgumentException("bad Rosetta level " + l + ": m " + m + ", k " + k);
            }
            levelBits[l] = m;
            levelK[l] = k;
            levelKeys[l] = keys;
            totalBits += m;
            totalWords += BitStore.wordsFor(m);
        }
        if (totalBits != h.m() || tableBytes + totalWords * Long.BYTES != payload.length()) {
            throw new IllegalArgumentException("Rosetta levels hold " + totalBits + " bits in " + totalWords
                    + " words; header says m " + h.m() + " in a payload of " + payload.length() + " bytes");
        }
        return new RosettaFilter(payload.words(tableBytes, totalWords), h.n(), h.seed(), levelBits, levelK,
                levelKeys);
    }

    private void insert(int level, long prefix) {
        long hash = hashers[level].hashLong(prefix);
        long h2 = Probes.second(hash);
        long m = levelBits[level];
        long base = levelBase[level];
        for (int i = 0; i < levelK[level]; i++) {
            words.setBit(base + Probes.reduce(hash, m));
            hash += h2;
        }
    }

    /** Whether level {@code level}'s filter may hold {@code prefix}; true for a level without bits. */
    private boolean probe(int level, long prefix) {
        long m = levelBits[level];
        if (m == 0) {
            return true;
        }
        long hash = hashers[level].hashLong(prefix);
        long h2 = Probes.second(hash);
        long base = levelBase[level];
        for (int i = 0, k = levelK[level]; i < k; i++) {
            if (!words.getBit(base + Probes.reduce(hash, m))) {
                return false;
            }
            hash += h2;
        }
        return true;
    }

    /** Probes the interval of the values with {@code prefix} at {@code level}, doubting it down to level 0. */
    private boolean doubt(long prefix, int level) {
        if (!probe(level, prefix)) {
            return false;
        }
        return level == 0 || doubt(prefix << 1, level - 1) || doubt((prefix << 1) | 1, level - 1);
    }

    /**
     * Whether some stored value may lie in [{@code from}, {@code to}] (unsigned, inclusive). Always
     * true for a range of more than 2^H values (the filter cannot tell) or a reversed one.
     */
    public boolean mightContainRange(long from, long to) {
        if (Long.compareUnsigned(from, to) > 0 || Long.compareUnsigned(to - from, maxRange()) >= 0) {
            return true;
        }
        long lo = from;
        while (true) {
            int h = height(lo, to);
            if (doubt(lo >>> h, h)) {
                return true;
            }
            long next = lo + (1L << h);
            if (next == 0 || Long.compareUnsigned(next, to) > 0) {
                return false;
            }
            lo = next;
        }
    }

    /** Height of the largest dyadic interval that starts at {@code lo}, ends by {@code to} and has a level. */
    private int height(long lo, long to) {
        int h = Math.min(levelBits.length - 1, Long.numberOfTrailingZeros(lo));
        while (h > 0 && Long.compareUnsigned(to - lo, (1L << h) - 1) < 0) {
            h--;
        }
        return h;
    }

    /**
     * The model's false-positive probability of [{@code from}, {@code to}] if it is empty:
     * 1 − Π (1 − P_h) over its dyadic intervals ({@link BloomMath#dyadicFpr}); 1 where the filter
     * cannot answer.
     */
    public double modelFpr(long from, long to) {
        if (Long.compareUnsigned(from, to) > 0 || Long.compareUnsigned(to - from, maxRange()) >= 0) {
            return 1.0;
        }
        double none = 1;
        long lo = from;
        while (true) {
            int h = height(lo, to);
            none *= 1 - dyadic[h];
            long next = lo + (1L << h);
            if (next == 0 || Long.compareUnsigned(next, to) > 0) {
                return 1 - none;
            }
            lo = next;
        }
    }

    /** Values one range may span: 2^H. */
    public long maxRange() {
        return 1L << (levelBits.length - 1);
    }

    /** Levels: H + 1. */
    public int levels() {
        return levelBits.length;
    }

    /** Bits of level {@code h}'s filter (0 when the split gave it none). */
    public long levelBits(int h) {
        return levelBits[h];
    }

    /** Distinct prefixes stored at level {@code h}. */
    public long levelKeys(int h) {
        return levelKeys[h];
    }

    /** Probes per prefix at level {@code h}. */
    public int levelK(int h) {
        return levelK[h];
    }

    /** The model rate of one empty dyadic interval of height {@code h}: P_h. */
    public double dyadicFpr(int h) {
        return dyadic[h];
    }

    @Override
    public FilterKind kind() {
        return FilterKind.ROSETTA;
    }

    /** The key's value ({@link RangeFilter#keyValue}): the filter needs the order. */
    @Override
    public long hash(byte[] key) {
        return RangeFilter.keyValue(key);
    }

    /** Always throws: the filter is static, its memory split fixed from all values at once. */
    @Override
    public boolean addHash(long hash) {
        throw new UnsupportedOperationException("a Rosetta filter is static: build it from all values at once");
    }

    /** A point query: one probe of level 0. */
    @Override
    public boolean mightContainHash(long value) {
        return probe(0, value);
    }

    @Override
    public long count() {
        return n;
    }

    @Override
    public long bitSize() {
        return words.wordCount() * 64;
    }

    /** The point-query rate: level 0's, P_0 = ε_0. */
    @Override
    public double expectedFpp() {
        return dyadic[0];
    }

    @Override
    public boolean isOffHeap() {
        return words.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        long m = 0;
        for (long b : levelBits) {
            m += b;
        }
        return new FilterHeader(FilterKind.ROSETTA, HashStrategy.XXH3_64, levelBits.length, 0, m, n, seed,
                16L * levelBits.length + words.byteSize(), 0);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        for (int h = 0; h < levelBits.length; h++) {
            out.writeLong(levelBits[h]);
            out.writeLong(levelK[h] | (levelKeys[h] << 8));
        }
        out.writeWords(words);
    }

    @Override
    public void close() {
        words.close();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "RosettaFilter[n=%d, H=%d, bits/value=%.2f, levels", n,
                levelBits.length - 1, n == 0 ? 0.0 : (double) bitSize() / n));
        for (int h = 0; h < levelBits.length; h++) {
            s.append(h == 0 ? " " : ", ").append(String.format(Locale.ROOT, "%.2f", levelKeys[h] == 0 ? 0.0
                    : (double) levelBits[h] / levelKeys[h]));
        }
        return s.append(" bits/prefix]").toString();
    }
}
