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
 * (block i holds r words, word b = bit b of slots 64i..64i+63), so a query reads two adjacent
 * blocks, r words each.
 *
 * <p>Fractional widths (the interleaved layout of RocksDB's ribbon filters): the last U blocks
 * hold r + 1 words, so keys whose start slot lies in them get (r + 1)-bit fingerprints. A budget
 * of bits per key is then spent whole, not rounded down to whole bits per slot: at 10 bits per
 * key and 6% slack, 9.4 bits per slot give 2^−9.4 ≈ 0.15% instead of 2^−9 ≈ 0.20%. Construction
 * solves every column for every key (a key of the lower blocks takes 0 as its extra fingerprint
 * bit) and stores the extra column only in the upper blocks, which the windows of the upper
 * blocks' keys never leave, since the upper blocks come last.
 *
 * <p>Space is r·m bits (and 64 more per upper block) for m slots, m about n·(1 + ε) with ε a
 * few percent whatever n is: a band 64 slots wide needs little slack even for small tables,
 * where a binary fuse filter needs 20–30% more slots than keys. A seed that leaves the system unsolvable is retried with the
 * next seed; after every {@value #ATTEMPTS_PER_SIZE} failed seeds the slots grow by
 * {@value #GROWTH_PERCENT}%. The seed sequence is fixed, so the same keys give the same filter.
 *
 * <p>Header use (docs/format/filter.md): {@code k} = fingerprint bits r (1..32), {@code aux} =
 * coefficient width (64), plus {@link #UPPER_BLOCKS_FLAG} when there are upper blocks, {@code m} =
 * slots (a multiple of 64), {@code n} = keys it was built from, {@code aux2} = construction seed;
 * payload = m/64 · r + U words, U (the blocks with r + 1 bits, 0 when r = 32) following from the
 * payload length.
 *
 * <p>Thread safety: immutable once built; any number of concurrent queries.
 */
public final class RibbonFilter implements MembershipFilter {
    /** Coefficient row width in bits. */
    public static final int WIDTH = 64;
    /**
     * Set in the header's {@code aux} (beside the width) when the filter has upper blocks: a
     * reader that predates them checks {@code aux} = 64 and so refuses such a filter as damaged
     * instead of misreading it (the upper blocks' keys would come out absent).
     */
    static final int UPPER_BLOCKS_FLAG = 1 << 8;
    static final int ATTEMPTS_PER_SIZE = 2;
    static final int GROWTH_PERCENT = 2;
    static final int MAX_ATTEMPTS = 200;
    private static final double MAX_FIRST_OVERHEAD = 0.10;
    /** The construction seeds are Probes.mix of SEED_START + i · SEED_STEP, i = 1, 2, ... */
    private static final long SEED_START = 0x3C6EF372FE94F82BL;
    private static final long SEED_STEP = 0x9E3779B97F4A7C15L;
    /** Slots per key {@link #resultBitsFor} assumes. */
    public static final double NOMINAL_SLOTS_PER_KEY = 1.1;

    private final BitStore words;
    private final int resultBits;
    private final long slots;
    /** First block whose keys get resultBits + 1 bits: the block count when there is none. */
    private final long upperStart;
    private final long lastBlock;
    private final long startRange;
    private final long constructionSeed;
    private final HashStrategy strategy;
    private final long seed;
    private final net.openhft.hashing.LongHashFunction hasher;
    private final long count;

    private RibbonFilter(BitStore words, int resultBits, long upperBlocks, long slots, long constructionSeed,
                         HashStrategy strategy, long seed, long count) {
        this.words = words;
        this.resultBits = resultBits;
        this.slots = slots;
        this.upperStart = slots / WIDTH - upperBlocks;
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
     * Builds a filter that spends at most {@code bitsPerKey} bits per key, all of it that whole
     * words allow: the slots the keys need, then ⌊budget / 64⌋ words shared out over the blocks,
     * r = ⌊words / blocks⌋ bits to every block and one more to the last (words mod blocks)
     * blocks. A set that fits one 64-slot block gets one block of {@link #resultBitsFor} bits
     * whatever the budget, and no block gets fewer than 1 bit or more than 32.
     */
    public static RibbonFilter buildWithin(long[] hashes, int count, double bitsPerKey, Storage storage) {
        if (!(bitsPerKey > 0)) {
            throw new IllegalArgumentException("bits per key must be positive: " + bitsPerKey);
        }
        checkCount(hashes, count);
        long budgetWords = (long) Math.floor(bitsPerKey * count / WIDTH);
        long slots = firstSlots(count);
        long rng = SEED_START;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (attempt > 0 && attempt % ATTEMPTS_PER_SIZE == 0) {
                slots = grow(slots);
            }
            long blocks = slots / WIDTH;
            int r;
            long upper;
            if (blocks == 1) {
                r = resultBitsFor(bitsPerKey);
                upper = 0;
            } else {
                long perBlock = budgetWords / blocks;
                r = (int) Math.max(1, Math.min(32, perBlock));
                upper = perBlock >= 1 && perBlock < 32 ? budgetWords - perBlock * blocks : 0;
            }
            rng += SEED_STEP;
            RibbonFilter f = tryBuild(hashes, count, r, upper, slots, Probes.mix(rng), storage);
            if (f != null) {
                return f;
            }
        }
        throw new IllegalStateException("ribbon construction failed after " + MAX_ATTEMPTS + " seeds for "
                + count + " keys");
    }

    /**
     * Whole fingerprint bits for a budget of {@code bitsPerKey}: the most that fit at
     * {@value #NOMINAL_SLOTS_PER_KEY} slots per key (the slack a 64-wide band needs for tables up
     * to about 300,000 keys), 1..32; what a filter of one block gets, and the lower width of
     * larger ones at that slack ({@link Filters#ribbonFpr}). Ten bits per key give 9.
     */
    public static int resultBitsFor(double bitsPerKey) {
        return (int) Math.max(1, Math.min(32, Math.floor(bitsPerKey / NOMINAL_SLOTS_PER_KEY + 1e-9)));
    }

    /** The filter, or null when no seed solves the system within {@code maxSlots} slots. */
    private static RibbonFilter build(long[] hashes, int count, int resultBits, long maxSlots, Storage storage) {
        checkBits(resultBits);
        checkCount(hashes, count);
        long slots = Math.min(firstSlots(count), Math.max(WIDTH, maxSlots / WIDTH * WIDTH));
        long rng = SEED_START;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (attempt > 0 && attempt % ATTEMPTS_PER_SIZE == 0) {
                long grown = grow(slots);
                if (grown > maxSlots) {
                    return null;
                }
                slots = grown;
            }
            rng += SEED_STEP;
            long constructionSeed = Probes.mix(rng);
            RibbonFilter f = tryBuild(hashes, count, resultBits, 0, slots, constructionSeed, storage);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /**
     * The first attempt's slot count for {@code n} keys, whole blocks: n·(1 + ε) with ε the
     * slack at which about nine constructions in ten succeed with a 64-wide band, 3% at a
     * thousand keys growing by 1.1 points each time n doubles (6% at 8,000) up to 10% (from
     * 70,000 keys, where 19 seeds in 20 succeed up to 300,000). Larger sets that need more grow.
     */
    static long firstSlots(long n) {
        double overhead = Math.min(MAX_FIRST_OVERHEAD, 0.03 + 0.011 * Math.max(0, Math.log(n / 1000.0) / Math.log(2)));
        long want = (long) Math.ceil(n * (1 + overhead));
        return Math.max(WIDTH, roundUp(want));
    }

    private static void checkCount(long[] hashes, int count) {
        if (count < 0 || count > hashes.length) {
            throw new IllegalArgumentException("count " + count + " outside 0.." + hashes.length);
        }
    }

    static long grow(long slots) {
        return roundUp(slots + Math.max(WIDTH, slots * GROWTH_PERCENT / 100));
    }

    private static long roundUp(long slots) {
        return (slots + WIDTH - 1) / WIDTH * WIDTH;
    }

    /**
     * One construction at {@code slots} slots and one seed, the last {@code upperBlocks} blocks
     * with {@code resultBits} + 1 bits: the filter, or null if the system has no solution.
     */
    static RibbonFilter tryBuild(long[] hashes, int count, int resultBits, long upperBlocks, long slots,
                                 long constructionSeed, Storage storage) {
        Objects.requireNonNull(storage, "storage");
        if (slots > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("too many keys for one ribbon filter: " + count);
        }
        long blocks = slots / WIDTH;
        checkShape(resultBits, upperBlocks, blocks);
        int m = (int) slots;
        long startRange = slots - WIDTH + 1;
        long[] coeff = new long[m];
        int[] result = new int[m];
        int columns = upperBlocks == 0 ? resultBits : resultBits + 1;
        long upperSlot = (blocks - upperBlocks) * WIDTH;
        long lowerMask = resultMask(resultBits);
        long upperMask = resultMask(columns);
        long[] byStart = byStartBlock(hashes, count, constructionSeed, startRange, (int) blocks);
        for (int i = 0; i < count; i++) {
            long x = byStart[i];
            int s = (int) start(x, startRange);
            long c = coefficients(x);
            // A key of the lower blocks is never asked for bit r; 0 keeps rows of such keys that
            // cancel out consistent in that column.
            int r = (int) (x & (s >= upperSlot ? upperMask : lowerMask));
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
        BitStore store = storage.allocate(blocks * resultBits + upperBlocks);
        long[] state = new long[columns];
        long[] out = new long[columns];
        long upperStart = blocks - upperBlocks;
        for (long block = blocks - 1; block >= 0; block--) {
            java.util.Arrays.fill(out, 0);
            for (int i = WIDTH - 1; i >= 0; i--) {
                int slot = (int) (block * WIDTH + i);
                long c = coeff[slot];
                int r = result[slot];
                for (int b = 0; b < columns; b++) {
                    long st = state[b] << 1;
                    // A slot no row was banded into is a free variable: 0 will do, since a key
                    // that is not in the set matches only when its independent fingerprint does.
                    long bit = c == 0 ? 0 : (Long.bitCount(st & c) ^ (r >>> b)) & 1;
                    state[b] = st | bit;
                    out[b] |= bit << i;
                }
            }
            // The lower blocks' column r is solved (the upper blocks' windows do not reach it)
            // and dropped.
            long offset = offset(block, resultBits, upperStart);
            for (int b = 0, w = width(block, resultBits, upperStart); b < w; b++) {
                store.setWord(offset + b, out[b]);
            }
        }
        return new RibbonFilter(store, resultBits, upperBlocks, slots, constructionSeed, Filters.DEFAULT_STRATEGY,
                Filters.DEFAULT_SEED, count);
    }

    /**
     * The keys' mixed hashes ordered by the block of their start slot (a counting sort; in hash
     * order within a block). Banding in this order touches the coefficient and result arrays a
     * block at a time instead of at a random slot per key: at 578,000 keys (a 64 MiB table's)
     * those arrays are 7 MB, and the sort cut a build's processor time from about 28 to 22 ms.
     * The order changes nothing in the filter: the system's echelon form has the same pivot slots
     * whatever order its rows come in, and with the free slots 0 its solution is unique, so the
     * words written are the same.
     */
    private static long[] byStartBlock(long[] hashes, int count, long constructionSeed, long startRange, int blocks) {
        int[] next = new int[blocks + 1];
        for (int i = 0; i < count; i++) {
            next[(int) (start(mix(hashes[i], constructionSeed), startRange) >>> 6) + 1]++;
        }
        for (int b = 0; b < blocks; b++) {
            next[b + 1] += next[b];
        }
        long[] sorted = new long[count];
        for (int i = 0; i < count; i++) {
            long x = mix(hashes[i], constructionSeed);
            sorted[next[(int) (start(x, startRange) >>> 6)]++] = x;
        }
        return sorted;
    }

    /** Word offset of block {@code block}: r words per block, one more per upper block before it. */
    private static long offset(long block, int resultBits, long upperStart) {
        long past = block - upperStart;
        return block * resultBits + (past & ~(past >> 63));
    }

    /** Fingerprint bits of keys starting in {@code block}. */
    private static int width(long block, int resultBits, long upperStart) {
        return resultBits + (int) ((upperStart - 1 - block) >>> 63);
    }

    private static void checkShape(int resultBits, long upperBlocks, long blocks) {
        checkBits(resultBits);
        if (upperBlocks < 0 || upperBlocks > blocks || (upperBlocks > 0 && resultBits == 32)) {
            throw new IllegalArgumentException("bad ribbon shape: " + upperBlocks + " of " + blocks
                    + " blocks with " + resultBits + " + 1 bits");
        }
    }

    static RibbonFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        checkBits(h.k());
        int width = h.aux() & ~UPPER_BLOCKS_FLAG;
        boolean hasUpper = (h.aux() & UPPER_BLOCKS_FLAG) != 0;
        if (width != WIDTH) {
            throw new IllegalArgumentException("ribbon coefficient width " + width + ", this build reads " + WIDTH);
        }
        if (h.m() < WIDTH || h.m() % WIDTH != 0 || h.n() < 0) {
            throw new IllegalArgumentException("bad ribbon shape: " + h.m() + " slots, " + h.n() + " keys");
        }
        long blocks = h.m() / WIDTH;
        long upperBlocks = h.payloadLength() / Long.BYTES - blocks * h.k();
        if (h.payloadLength() % Long.BYTES != 0 || (hasUpper ? upperBlocks < 1 : upperBlocks != 0)) {
            throw new IllegalArgumentException("ribbon payload of " + h.payloadLength() + " bytes does not fit "
                    + blocks + " blocks of " + h.k() + " words" + (hasUpper ? " and some upper blocks" : ""));
        }
        checkShape(h.k(), upperBlocks, blocks);
        BitStore store = payload.words(0, blocks * h.k() + upperBlocks);
        return new RibbonFilter(store, h.k(), upperBlocks, h.m(), h.aux2(), h.hashStrategy(), h.seed(), h.n());
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
        long lo = offset(block, resultBits, upperStart);
        long hi = offset(Math.min(block + 1, lastBlock), resultBits, upperStart);
        int bits = width(block, resultBits, upperStart);
        // The window of slots s..s+63 is the rest of block ⌊s/64⌋ then the start of the next; its
        // parity against c equals the parity of (this block AND c << offset) XOR (next block AND
        // c >>> (64 − offset)), so c is shifted once, not once per bit (cHigh is 0 at offset 0).
        long cLow = c << offset;
        long cHigh = (c >>> (63 - offset)) >>> 1;
        long computed = 0;
        for (int b = 0; b < bits; b++) {
            // All r bits are computed without branching: an early exit would mispredict on half
            // of all absent keys.
            long both = (words.getWord(lo + b) & cLow) ^ (words.getWord(hi + b) & cHigh);
            computed |= (long) (Long.bitCount(both) & 1) << b;
        }
        return computed == (x & ((1L << bits) - 1));
    }

    /** Fingerprint bits of the lower blocks' keys (the upper blocks' get one more). */
    public int resultBits() {
        return resultBits;
    }

    /** Blocks, the last ones, whose keys get {@link #resultBits} + 1 bits. */
    public long upperBlocks() {
        return slots / WIDTH - upperStart;
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
        return slots * resultBits + upperBlocks() * WIDTH;
    }

    /** 2^−r over the start slots in the lower blocks, 2^−(r+1) over those in the upper ones. */
    @Override
    public double expectedFpp() {
        double lower = Math.min(upperStart * WIDTH, startRange) / (double) startRange;
        return lower * Math.pow(2, -resultBits) + (1 - lower) * Math.pow(2, -resultBits - 1);
    }

    @Override
    public boolean isOffHeap() {
        return words.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        int aux = upperBlocks() > 0 ? WIDTH | UPPER_BLOCKS_FLAG : WIDTH;
        return new FilterHeader(FilterKind.RIBBON, strategy, resultBits, aux, slots, count, seed,
                words.byteSize(), constructionSeed);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        out.writeWords(words);
    }

    @Override
    public void close() {
        words.close();
    }

    @Override
    public String toString() {
        return String.format("RibbonFilter[r=%d, upper blocks=%d, n=%d, slots=%d, bits/key=%.2f]", resultBits,
                upperBlocks(), count, slots,
                count == 0 ? 0.0 : (double) bitSize() / count);
    }
}
