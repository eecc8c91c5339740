package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A static range filter over 64-bit values after Grafite (Costa, Ferragina, Vinciguerra, "Grafite:
 * Taming Adversarial Queries with Optimal Range Filters", SIGMOD 2024): "may some value lie in
 * [a, b]?" for ranges of at most L values, with no false negative and a false-positive
 * probability of at most ℓ·n/r ≈ ℓ / 2^(B−2) for a range of ℓ values at B bits per value,
 * whatever the values and however the queries relate to them.
 *
 * <p>How: the value space is cut into blocks of L = 2^blockBits values; block j gets a random
 * base q(j) in [0, r), and value x the code (q(x / L) + x mod L) mod r, with r = ⌈n·2^(B−2)⌉.
 * Inside a block codes keep the values' order and distances, so a query range (one block, or two
 * neighbouring ones) maps onto at most two code intervals, and a range just past a stored value
 * maps right past that value's code: it is never falsely hit by its neighbour (the correlated
 * queries that defeat prefix Bloom filters and SuRF). Values of other blocks land at random
 * places: each falls into an interval of ℓ codes with probability ℓ/r. The sorted codes are kept
 * in Elias–Fano form: n·l low bits (l = ⌊log2(r/n)⌋) and about 2n high bits in unary, plus one
 * 64-bit select sample per {@value #SELECT_SAMPLE} buckets: B + 0.25 bits per value in all.
 *
 * <p>{@link #hash} maps a key to its value: its first 8 bytes read big-endian, zero-padded (so
 * key order is value order); {@link #mightContainHash} asks for one value (a point query).
 * {@link #addHash} is unsupported: build from every value with {@link #build}.
 *
 * <p>Header use (docs/format/filter.md, kind 7): {@code k} = l, {@code aux} = blockBits,
 * {@code m} = r, {@code n} = stored codes, {@code aux2} = bits of the high array,
 * {@code hashStrategy}/{@code seed} = the block hash q (XXH3-64 of the block number).
 * Payload = low words, high words, select samples.
 *
 * <p>A query trusts the payload: a damaged one can answer wrongly (never loop or read outside
 * it), so check the payload checksum before believing "absent" (the engine does, before a
 * table's first range query).
 *
 * <p>Thread safety: immutable once built; any number of concurrent queries.
 */
public final class RangeFilter implements MembershipFilter {
    /** Buckets (zeros of the high array) between two select samples. */
    static final int SELECT_SAMPLE = 256;
    /** Largest block: 2^40 values. */
    public static final int MAX_BLOCK_BITS = 40;
    /** Most bits per value: r = n·2^(B−2) must stay far below 2^63 for any table's n. */
    public static final int MAX_BITS_PER_VALUE = 32;

    private final BitStore words;
    private final long n;
    private final int lowBits;
    private final int blockBits;
    private final long r;
    private final long highLength;
    private final long lowWords;
    private final long highWords;
    private final long maxHigh;
    private final long seed;
    private final net.openhft.hashing.LongHashFunction q;

    private RangeFilter(BitStore words, long n, int lowBits, int blockBits, long r, long highLength, long seed) {
        this.words = words;
        this.n = n;
        this.lowBits = lowBits;
        this.blockBits = blockBits;
        this.r = r;
        this.highLength = highLength;
        this.lowWords = BitStore.wordsFor(n * lowBits);
        this.highWords = BitStore.wordsFor(highLength);
        this.maxHigh = highLength - n - 1;
        this.seed = seed;
        this.q = HashStrategy.XXH3_64.function(seed);
    }

    /**
     * Builds a filter of {@code values[0..count)} (any order, repeats allowed) at
     * {@code bitsPerValue} (at least 3) for ranges of up to 2^{@code blockBits} values.
     */
    public static RangeFilter build(long[] values, int count, double bitsPerValue, int blockBits, long seed,
                                    Storage storage) {
        Objects.requireNonNull(storage, "storage");
        if (!(bitsPerValue >= 3 && bitsPerValue <= MAX_BITS_PER_VALUE)) {
            throw new IllegalArgumentException("range filter bits per value must be in [3, " + MAX_BITS_PER_VALUE
                    + "]: " + bitsPerValue);
        }
        if (blockBits < 0 || blockBits > MAX_BLOCK_BITS) {
            throw new IllegalArgumentException("block bits must be in [0, " + MAX_BLOCK_BITS + "]: " + blockBits);
        }
        if (count < 1 || count > values.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + values.length);
        }
        long n = count;
        long r = (long) Math.ceil(n * Math.pow(2, bitsPerValue - 2));
        int lowBits = 63 - Long.numberOfLeadingZeros(r / n);
        net.openhft.hashing.LongHashFunction q = HashStrategy.XXH3_64.function(seed);
        long[] codes = new long[count];
        for (int i = 0; i < count; i++) {
            codes[i] = code(values[i], q, blockBits, r);
        }
        Arrays.sort(codes);
        long maxHigh = codes[count - 1] >>> lowBits;
        long highLength = count + maxHigh + 1;
        long lowWords = BitStore.wordsFor((long) count * lowBits);
        long highWords = BitStore.wordsFor(highLength);
        long samples = (maxHigh + 1 + SELECT_SAMPLE - 1) / SELECT_SAMPLE;
        BitStore words = storage.allocate(lowWords + highWords + samples);
        long lowMask = lowBits == 0 ? 0 : -1L >>> (64 - lowBits);
        for (int i = 0; i < count; i++) {
            writeBits(words, (long) i * lowBits, lowBits, codes[i] & lowMask);
            long bit = (codes[i] >>> lowBits) + i;
            long w = lowWords + (bit >>> 6);
            words.setWord(w, words.getWord(w) | (1L << bit));
        }
        long zeros = 0;
        for (long p = 0; p < highLength; p++) {
            if ((words.getWord(lowWords + (p >>> 6)) & (1L << p)) == 0) {
                if (zeros % SELECT_SAMPLE == 0) {
                    words.setWord(lowWords + highWords + zeros / SELECT_SAMPLE, p);
                }
                zeros++;
            }
        }
        return new RangeFilter(words, count, lowBits, blockBits, r, highLength, seed);
    }

    static RangeFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        int lowBits = h.k();
        int blockBits = h.aux();
        long n = h.n();
        long r = h.m();
        long highLength = h.aux2();
        if (lowBits < 0 || lowBits > 62 || blockBits < 0 || blockBits > MAX_BLOCK_BITS || n < 0 || r < 1
                || highLength < n + (n == 0 ? 0 : 1) || (r >>> lowBits) + n + 1 < highLength) {
            throw new IllegalArgumentException("bad range filter shape: l " + lowBits + ", block bits " + blockBits
                    + ", n " + n + ", r " + r + ", high bits " + highLength);
        }
        long samples = (highLength - n + SELECT_SAMPLE - 1) / SELECT_SAMPLE;
        long total = BitStore.wordsFor(n * lowBits) + BitStore.wordsFor(highLength) + samples;
        if (total * Long.BYTES != payload.length()) {
            throw new IllegalArgumentException("range filter payload of " + payload.length() + " bytes; its shape needs "
                    + total * Long.BYTES);
        }
        return new RangeFilter(payload.words(0, total), n, lowBits, blockBits, r, highLength, h.seed());
    }

    /** A key's value: its first 8 bytes, big-endian, zero-padded; key order is value order. */
    public static long keyValue(byte[] key) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (i < key.length ? key[i] & 0xFF : 0);
        }
        return v;
    }

    private static long code(long x, net.openhft.hashing.LongHashFunction q, int blockBits, long r) {
        long base = reduce(q.hashLong(x >>> blockBits), r);
        long offset = blockBits == 0 ? 0 : x & (-1L >>> (64 - blockBits));
        return (base + offset % r) % r;
    }

    /** Maps a 64-bit hash onto [0, r) (unsigned multiply-high). */
    private static long reduce(long hash, long r) {
        return Math.multiplyHigh(hash, r) + ((hash >> 63) & r);
    }

    /**
     * Whether some stored value may lie in [{@code from}, {@code to}] (unsigned, inclusive). Always
     * true for a range of more than 2^blockBits values (the filter cannot tell) or a reversed one.
     */
    public boolean mightContainRange(long from, long to) {
        if (Long.compareUnsigned(from, to) > 0 || Long.compareUnsigned(to - from, maxRange()) >= 0) {
            return true;
        }
        long len = to - from + 1;
        long fromBlock = from >>> blockBits;
        long toBlock = to >>> blockBits;
        if (fromBlock == toBlock) {
            return anyInCodes(code(from, q, blockBits, r), len);
        }
        long firstLen = maxRange() - (from & (maxRange() - 1));
        return anyInCodes(code(from, q, blockBits, r), firstLen)
                || anyInCodes(reduce(q.hashLong(toBlock), r), len - firstLen);
    }

    /** Values one range may span: 2^blockBits. */
    public long maxRange() {
        return 1L << blockBits;
    }

    /** Whether a code in [start, start + len) mod r is stored. */
    private boolean anyInCodes(long start, long len) {
        if (n == 0) {
            return false;
        }
        if (len >= r) {
            return true;
        }
        long end = start + len - 1;
        if (end < r) {
            return anyIn(start, end);
        }
        return anyIn(start, r - 1) || anyIn(0, end - r);
    }

    /** Whether a stored code lies in [lo, hi]: the successor of lo, compared with hi. */
    private boolean anyIn(long lo, long hi) {
        long bucket = lo >>> lowBits;
        if (bucket > maxHigh) {
            return false;
        }
        long lastBucket = hi >>> lowBits;
        long pos = bucket == 0 ? 0 : select0(bucket - 1) + 1;
        long i = pos - bucket;
        while (i < n && pos >= 0 && pos < highLength) {
            if ((words.getWord(lowWords + (pos >>> 6)) & (1L << pos)) != 0) {
                long v = (bucket << lowBits) | readBits(words, i * lowBits, lowBits);
                if (v >= lo) {
                    return v <= hi;
                }
                i++;
            } else if (++bucket > lastBucket) {
                return false;
            }
            pos++;
        }
        return false;
    }

    /** Position of zero number {@code k} (from 0) of the high array. */
    private long select0(long k) {
        long p = words.getWord(lowWords + highWords + k / SELECT_SAMPLE);
        long need = k % SELECT_SAMPLE;
        if (need == 0) {
            return p;
        }
        p++;
        while (p > 0 && p < highLength) {
            long w = p >>> 6;
            long zeros = ~words.getWord(lowWords + w) >>> (p & 63);
            int count = Long.bitCount(zeros);
            if (count >= need) {
                for (long j = 1; j < need; j++) {
                    zeros &= zeros - 1;
                }
                return p + Long.numberOfTrailingZeros(zeros);
            }
            need -= count;
            p = (w + 1) << 6;
        }
        return highLength;
    }

    private static void writeBits(BitStore s, long bit, int width, long value) {
        if (width == 0) {
            return;
        }
        long w = bit >>> 6;
        int off = (int) (bit & 63);
        s.setWord(w, s.getWord(w) | (value << off));
        if (off + width > 64) {
            s.setWord(w + 1, s.getWord(w + 1) | (value >>> (64 - off)));
        }
    }

    private static long readBits(BitStore s, long bit, int width) {
        if (width == 0) {
            return 0;
        }
        long w = bit >>> 6;
        int off = (int) (bit & 63);
        long v = s.getWord(w) >>> off;
        if (off + width > 64) {
            v |= s.getWord(w + 1) << (64 - off);
        }
        return v & (-1L >>> (64 - width));
    }

    @Override
    public FilterKind kind() {
        return FilterKind.RANGE;
    }

    /** The key's value ({@link #keyValue}), not a hash: the filter needs the order. */
    @Override
    public long hash(byte[] key) {
        return keyValue(key);
    }

    /** Always throws: the filter is static, built from every value at once. */
    @Override
    public boolean addHash(long hash) {
        throw new UnsupportedOperationException("a range filter is static: build it from all values at once");
    }

    /** A point query: whether the value (from {@link #hash}) may be stored. */
    @Override
    public boolean mightContainHash(long value) {
        return mightContainRange(value, value);
    }

    @Override
    public long count() {
        return n;
    }

    @Override
    public long bitSize() {
        return words.wordCount() * 64;
    }

    /** The point-query rate: n / r ≈ 2^−(B−2); a range of ℓ values has at most ℓ times this. */
    @Override
    public double expectedFpp() {
        return Math.min(1.0, (double) n / r);
    }

    @Override
    public boolean isOffHeap() {
        return words.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.RANGE, HashStrategy.XXH3_64, lowBits, blockBits, r, n, seed,
                words.byteSize(), highLength);
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
        return String.format("RangeFilter[n=%d, r=%d, l=%d, L=2^%d, bits/value=%.2f]", n, r, lowBits, blockBits,
                n == 0 ? 0.0 : (double) bitSize() / n);
    }
}
