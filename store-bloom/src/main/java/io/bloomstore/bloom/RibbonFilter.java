package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A static Standard Ribbon filter (Dillinger &amp; Walzer, "Ribbon filter: practically smaller
 * than Bloom and Xor", 2021) with 64-bit coefficient rows, built once from every key and
 * immutable afterwards.
 *
 * <p>Each key hash gives a start slot s, a 64-bit coefficient row c (lowest bit set) and an
 * r-bit fingerprint f. Construction solves, over GF(2), the system "for every key, the XOR of
 * the solution rows S[s + j] over the set bits j of c equals f" by on-the-fly Gaussian
 * elimination (each row is banded within 64 slots of its start) and back-substitution; a query
 * recomputes that XOR and compares it with f. A key that was added always matches; any other
 * key matches with probability 2^−r. The solution is stored column-major in blocks of 64 slots
 * (block i holds r words, word b = bit b of slots 64i..64i+63), so a query reads at most two
 * adjacent blocks, r words each, usually stopping after the first two words that disagree.
 *
 * <p>Space is r·m bits for m slots, m about n·(1 + ε) with ε a few percent whatever n is: a
 * band 64 slots wide needs little slack even for small tables, where a binary fuse filter needs
 * 20–30% more slots than keys. A seed that leaves the system unsolvable is retried with the
 * next seed; after every {@value #ATTEMPTS_PER_SIZE} failed seeds the slots grow by
 * {@value #GROWTH_PERCENT}%. The seed sequence is fixed, so the same keys give the same filter.
 *
 * <p>Header use (docs/format/filter.md): {@code k} = fingerprint bits r (1..32), {@code aux} =
 * coefficient width (64), {@code m} = slots (a multiple of 64), {@code n} = keys it was built
 * from, {@code aux2} = construction seed; payload = m/64 · r words.
 *
 * <p>Thread safety: immutable once built; any number of concurrent queries.
 */
public final class RibbonFilter implements MembershipFilter {
    /** Coefficient row width in bits. */
    public static final int WIDTH = 64;
    static final int ATTEMPTS_PER_SIZE = 2;
    static final int GROWTH_PERCENT = 2;
    static final int MAX_ATTEMPTS = 200;
    /** Slots per key {@link #resultBitsFor} assumes. */
    public static final double NOMINAL_SLOTS_PER_KEY = 1.1;

    private final BitStore words;
    private final int resultBits;
    private final long slots;
    private final long resultMask;
    private final long lastBlock;
    private final long startRange;
    private final long constructionSeed;
    private final HashStrategy strategy;
    private final long seed;
    private final net.openhft.hashing.LongHashFunction hasher;
    private final long count;

    private RibbonFilter(BitStore words, int resultBits, long slots, long constructionSeed, HashStrategy strategy,
                         long seed, long count) {
        this.words = words;
        this.resultBits = resultBits;
        this.slots = slots;
        this.resultMask = resultMask(resultBits);
        this.lastBlock = slots / WIDTH - 1;
        this.startRange = slots - WIDTH + 1;
        this.constructionSeed = constructionSeed;
        this.strategy = strategy;
        this.seed = seed;
        this.hasher = strategy.function(seed);
        this.count = count;
    }

    /**
     * Builds a filter with {@code resultBits}-bit fingerprints (1..32) from the first
     * {@code count} key hashes of {@code hashes} (from {@link Filters#hash}); the array is not
     * modified. Equal hashes are allowed (they add nothing).
     */
    public static RibbonFilter build(long[] hashes, int count, int resultBits, Storage storage) {
        RibbonFilter f = build(hashes, count, resultBits, Long.MAX_VALUE, storage);
        if (f == null) {
            throw new IllegalStateException("ribbon construction failed after " + MAX_ATTEMPTS + " seeds for "
                    + count + " keys");
        }
        return f;
    }

    /**
     * Builds a filter that spends at most {@code bitsPerKey} bits per key: fingerprints of
     * {@link #resultBitsFor} bits, or fewer when the slots the keys need would overspend. A set
     * smaller than one 64-slot block gets one block whatever the budget.
     */
    public static RibbonFilter buildWithin(long[] hashes, int count, double bitsPerKey, Storage storage) {
        if (!(bitsPerKey > 0)) {
            throw new IllegalArgumentException("bits per key must be positive: " + bitsPerKey);
        }
        for (int r = resultBitsFor(bitsPerKey); r >= 1; r--) {
            long maxSlots = Math.max(WIDTH, (long) Math.floor(bitsPerKey * count / r));
            RibbonFilter f = build(hashes, count, r, maxSlots, storage);
            if (f != null) {
                return f;
            }
        }
        return build(hashes, count, 1, storage);
    }

    /**
     * Fingerprint bits for a budget of {@code bitsPerKey}: the most that fit at
     * {@value #NOMINAL_SLOTS_PER_KEY} slots per key (the slack a 64-wide band needs for tables up
     * to about 200,000 keys), 1..32. Ten bits per key give 9-bit fingerprints, 2^−9 = 0.20%.
     */
    public static int resultBitsFor(double bitsPerKey) {
        return (int) Math.max(1, Math.min(32, Math.floor(bitsPerKey / NOMINAL_SLOTS_PER_KEY + 1e-9)));
    }

    /** The filter, or null when no seed solves the system within {@code maxSlots} slots. */
    private static RibbonFilter build(long[] hashes, int count, int resultBits, long maxSlots, Storage storage) {
        Objects.requireNonNull(storage, "storage");
        checkBits(resultBits);
        if (count < 0 || count > hashes.length) {
            throw new IllegalArgumentException("count " + count + " outside 0.." + hashes.length);
        }
        long slots = Math.min(firstSlots(count), Math.max(WIDTH, maxSlots / WIDTH * WIDTH));
        long rng = 0x3C6EF372FE94F82BL;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (attempt > 0 && attempt % ATTEMPTS_PER_SIZE == 0) {
                long grown = grow(slots);
                if (grown > maxSlots) {
                    return null;
                }
                slots = grown;
            }
            rng += 0x9E3779B97F4A7C15L;
            long constructionSeed = Probes.mix(rng);
            RibbonFilter f = tryBuild(hashes, count, resultBits, slots, constructionSeed, storage);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /**
     * The first attempt's slot count for {@code n} keys, whole blocks: n·(1 + ε) with ε the
     * slack at which about nine constructions in ten succeed with a 64-wide band, 3% at a
     * thousand keys growing by 1.1 points each time n doubles (6% at 8,000, 10% at 70,000).
     */
    static long firstSlots(long n) {
        double overhead = 0.03 + 0.011 * Math.max(0, Math.log(n / 1000.0) / Math.log(2));
        long want = (long) Math.ceil(n * (1 + overhead));
        return Math.max(WIDTH, roundUp(want));
    }

    static long grow(long slots) {
        return roundUp(slots + Math.max(WIDTH, slots * GROWTH_PERCENT / 100));
    }

    private static long roundUp(long slots) {
        return (slots + WIDTH - 1) / WIDTH * WIDTH;
    }

    /** One construction at {@code slots} slots and one seed: the filter, or null if the system has no solution. */
    static RibbonFilter tryBuild(long[] hashes, int count, int resultBits, long slots, long constructionSeed,
                                 Storage storage) {
        if (slots > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("too many keys for one ribbon filter: " + count);
        }
        int m = (int) slots;
        long startRange = slots - WIDTH + 1;
        long[] coeff = new long[m];
        int[] result = new int[m];
        long mask = resultMask(resultBits);
        for (int i = 0; i < count; i++) {
            long x = mix(hashes[i], constructionSeed);
            int s = (int) start(x, startRange);
            long c = coefficients(x);
            int r = (int) (x & mask);
            while (true) {
                long existing = coeff[s];
                if (existing == 0) {
                    coeff[s] = c;
                    result[s] = r;
                    break;
                }
                c ^= existing;
                r ^= result[s];
                if (c == 0) {
                    if (r != 0) {
                        return null;
                    }
                    break;
                }
                int tz = Long.numberOfTrailingZeros(c);
                s += tz;
                c >>>= tz;
            }
        }
        BitStore store = storage.allocate((slots / WIDTH) * resultBits);
        long[] state = new long[resultBits];
        long[] out = new long[resultBits];
        for (long block = slots / WIDTH - 1; block >= 0; block--) {
            java.util.Arrays.fill(out, 0);
            for (int i = WIDTH - 1; i >= 0; i--) {
                int slot = (int) (block * WIDTH + i);
                long c = coeff[slot];
                int r = result[slot];
                for (int b = 0; b < resultBits; b++) {
                    long st = state[b] << 1;
                    // A slot no row was banded into is a free variable: 0 will do, since a key
                    // that is not in the set matches only when its independent fingerprint does.
                    long bit = c == 0 ? 0 : (Long.bitCount(st & c) ^ (r >>> b)) & 1;
                    state[b] = st | bit;
                    out[b] |= bit << i;
                }
            }
            for (int b = 0; b < resultBits; b++) {
                store.setWord(block * resultBits + b, out[b]);
            }
        }
        return new RibbonFilter(store, resultBits, slots, constructionSeed, Filters.DEFAULT_STRATEGY,
                Filters.DEFAULT_SEED, count);
    }

    static RibbonFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        checkBits(h.k());
        if (h.aux() != WIDTH) {
            throw new IllegalArgumentException("ribbon coefficient width " + h.aux() + ", this build reads " + WIDTH);
        }
        if (h.m() < WIDTH || h.m() % WIDTH != 0 || h.n() < 0) {
            throw new IllegalArgumentException("bad ribbon shape: " + h.m() + " slots, " + h.n() + " keys");
        }
        BitStore store = payload.words(0, h.m() / WIDTH * h.k());
        return new RibbonFilter(store, h.k(), h.m(), h.aux2(), h.hashStrategy(), h.seed(), h.n());
    }

    static void checkBits(int resultBits) {
        if (resultBits < 1 || resultBits > 32) {
            throw new IllegalArgumentException("ribbon fingerprints are 1..32 bits, got " + resultBits);
        }
    }

    private static long resultMask(int bits) {
        return bits == 64 ? -1L : (1L << bits) - 1;
    }

    /** The remixed hash the start, the coefficients and the fingerprint derive from: binary fuse's. */
    static long mix(long keyHash, long constructionSeed) {
        return BinaryFuseFilter.mix(keyHash, constructionSeed);
    }

    /** The start slot, in [0, startRange): the unsigned high word of mixed · startRange. */
    static long start(long mixed, long startRange) {
        return Probes.reduce(mixed, startRange);
    }

    /** The coefficient row: a second mix of the hash, lowest bit set. */
    static long coefficients(long mixed) {
        long h = mixed * 0x9E3779B97F4A7C15L;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return h | 1;
    }

    @Override
    public FilterKind kind() {
        return FilterKind.RIBBON;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    /** Always throws: a static filter holds exactly the keys it was built from. */
    @Override
    public boolean addHash(long hash) {
        throw new UnsupportedOperationException("a ribbon filter is static: build it from all keys at once");
    }

    @Override
    public boolean mightContainHash(long hash) {
        long x = mix(hash, constructionSeed);
        long s = start(x, startRange);
        long c = coefficients(x);
        long block = s >>> 6;
        int offset = (int) (s & 63);
        long lo = block * resultBits;
        long hi = Math.min(block + 1, lastBlock) * resultBits;
        // The window of slots s..s+63 is the rest of block ⌊s/64⌋ then the start of the next; its
        // parity against c equals the parity of (this block AND c << offset) XOR (next block AND
        // c >>> (64 − offset)), so c is shifted once, not once per bit (cHigh is 0 at offset 0).
        long cLow = c << offset;
        long cHigh = (c >>> (63 - offset)) >>> 1;
        long computed = 0;
        for (int b = 0; b < resultBits; b++) {
            // All r bits are computed without branching: an early exit would mispredict on half
            // of all absent keys.
            long both = (words.getWord(lo + b) & cLow) ^ (words.getWord(hi + b) & cHigh);
            computed |= (long) (Long.bitCount(both) & 1) << b;
        }
        return computed == (x & resultMask);
    }

    public int resultBits() {
        return resultBits;
    }

    /** Number of solution slots (a multiple of 64). */
    public long slots() {
        return slots;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        return slots * resultBits;
    }

    @Override
    public double expectedFpp() {
        return Math.pow(2, -resultBits);
    }

    @Override
    public boolean isOffHeap() {
        return words.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.RIBBON, strategy, resultBits, WIDTH, slots, count, seed,
                words.byteSize(), constructionSeed);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        for (long w = 0, n = words.wordCount(); w < n; w++) {
            out.writeLong(words.getWord(w));
        }
    }

    @Override
    public void close() {
        words.close();
    }

    @Override
    public String toString() {
        return String.format("RibbonFilter[r=%d, n=%d, slots=%d, bits/key=%.2f]", resultBits, count, slots,
                count == 0 ? 0.0 : (double) bitSize() / count);
    }
}
