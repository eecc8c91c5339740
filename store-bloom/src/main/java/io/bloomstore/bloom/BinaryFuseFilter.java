package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A static binary fuse filter (Graf &amp; Lemire, "Binary Fuse Filters: Fast and Smaller Than
 * Xor Filters", JEA 2022), built once from every key and immutable afterwards. Each key maps to
 * three slots in three consecutive segments of an array of 8- or 16-bit fingerprints; the
 * construction (hypergraph peeling, {@link BinaryFuseBuilder}) chooses the slots' values so that
 * fp(key) = F[h0] XOR F[h1] XOR F[h2] for every key. A query is three reads and two XORs.
 * False-positive rate 2^−f, memory about 1.125·f bits per key for large sets (more below a
 * million keys), against the lower bound log2(1/ε) = f.
 *
 * <p>Keys are the 64-bit hashes of {@link Filters#hash}; duplicates are removed (when the first
 * seed fails to peel), and a construction that fails to peel retries with the next seed.
 * {@link #addHash} is unsupported: build with {@link #build} (or {@link Filters#build}).
 *
 * <p>Header use (docs/format/filter.md): {@code k} = segment length (a power of two),
 * {@code aux} = fingerprint bits (8 or 16), {@code m} = array length in fingerprints
 * (segment count + 2 segments), {@code n} = distinct keys, {@code aux2} = construction seed;
 * payload = ⌈m·f/64⌉ words, fingerprint i at bit i·f.
 *
 * <p>Thread safety: immutable once built; any number of concurrent queries.
 */
public final class BinaryFuseFilter implements MembershipFilter {
    private final BitStore fingerprints;
    private final int fpBits;
    private final long fpMask;
    private final int perWordShift;
    private final long arrayLength;
    private final int segmentLength;
    private final long segmentCountLength;
    private final long constructionSeed;
    private final HashStrategy strategy;
    private final long seed;
    private final net.openhft.hashing.LongHashFunction hasher;
    private final long count;

    BinaryFuseFilter(BitStore fingerprints, int fpBits, long arrayLength, int segmentLength, long constructionSeed,
                     HashStrategy strategy, long seed, long count) {
        this.fingerprints = fingerprints;
        this.fpBits = fpBits;
        this.fpMask = (1L << fpBits) - 1;
        this.perWordShift = fpBits == 8 ? 3 : 2;
        this.arrayLength = arrayLength;
        this.segmentLength = segmentLength;
        this.segmentCountLength = arrayLength - 2L * segmentLength;
        this.constructionSeed = constructionSeed;
        this.strategy = strategy;
        this.seed = seed;
        this.hasher = strategy.function(seed);
        this.count = count;
    }

    /**
     * Builds a filter of {@code fingerprintBits} (8 or 16) from the first {@code count} key
     * hashes of {@code hashes} (from {@link Filters#hash}); the array is not modified.
     */
    public static BinaryFuseFilter build(long[] hashes, int count, int fingerprintBits, Storage storage) {
        Objects.requireNonNull(storage, "storage");
        checkBits(fingerprintBits);
        if (count < 0 || count > hashes.length) {
            throw new IllegalArgumentException("count " + count + " outside 0.." + hashes.length);
        }
        long[] keys = Arrays.copyOf(hashes, count);
        // A table's keys are distinct, so their hashes nearly always are: the first seed is tried
        // unsorted. Equal hashes share all three slots and never peel, so when it fails the keys
        // are sorted, duplicates dropped, and the seeds tried again from the first (the same keys
        // give the same filter either way: peeling does not depend on the keys' order).
        BinaryFuseFilter filter = new BinaryFuseBuilder(keys, count, fingerprintBits).build(storage, 1);
        if (filter != null) {
            return filter;
        }
        Arrays.sort(keys);
        int distinct = 0;
        for (int i = 0; i < keys.length; i++) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                keys[distinct++] = keys[i];
            }
        }
        filter = new BinaryFuseBuilder(keys, distinct, fingerprintBits).build(storage, BinaryFuseBuilder.MAX_ATTEMPTS);
        if (filter == null) {
            throw new IllegalStateException("binary fuse construction failed after " + BinaryFuseBuilder.MAX_ATTEMPTS
                    + " seeds for " + distinct + " keys");
        }
        return filter;
    }

    static BinaryFuseFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        checkBits(h.aux());
        int seg = h.k();
        if (seg < 1 || Integer.bitCount(seg) != 1 || h.m() < 3L * seg || h.m() % seg != 0 || h.n() < 0) {
            throw new IllegalArgumentException("bad binary fuse shape: segment " + seg + ", length " + h.m());
        }
        // m slots of aux bits each must be exactly the payload, checked before multiplying: a
        // damaged m (its header CRC intact) could overflow m * aux into the payload's own size
        // and send every lookup to slots far past the mapping.
        if (h.m() > payload.length() * Byte.SIZE / h.aux()
                || payload.length() != BitStore.wordsFor(h.m() * h.aux()) * Long.BYTES) {
            throw new IllegalArgumentException("payload of " + payload.length() + " bytes does not hold " + h.m()
                    + " fingerprints of " + h.aux() + " bits exactly");
        }
        BitStore store = payload.words(0, BitStore.wordsFor(h.m() * h.aux()));
        return new BinaryFuseFilter(store, h.aux(), h.m(), seg, h.aux2(), h.hashStrategy(), h.seed(), h.n());
    }

    static void checkBits(int fingerprintBits) {
        if (fingerprintBits != 8 && fingerprintBits != 16) {
            throw new IllegalArgumentException("binary fuse fingerprints are 8 or 16 bits, got " + fingerprintBits);
        }
    }

    /** The remixed hash every position and the fingerprint derive from (a bijection of key + seed). */
    static long mix(long keyHash, long constructionSeed) {
        long h = keyHash + constructionSeed;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    static long fingerprintOf(long mixed, long mask) {
        return (mixed ^ (mixed >>> 32)) & mask;
    }

    /** Slot {@code index} (0, 1, 2) of a mixed hash: segment start plus an XOR-scrambled offset. */
    static long position(int index, long mixed, long segmentCountLength, int segmentLength) {
        long h = Math.multiplyHigh(mixed, segmentCountLength) + ((mixed >> 63) & segmentCountLength);
        h += (long) index * segmentLength;
        long low = mixed & ((1L << 36) - 1);
        return h ^ ((low >>> (36 - 18 * index)) & (segmentLength - 1));
    }

    @Override
    public FilterKind kind() {
        return FilterKind.BINARY_FUSE;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    /** Always throws: a static filter holds exactly the keys it was built from. */
    @Override
    public boolean addHash(long hash) {
        throw new UnsupportedOperationException("a binary fuse filter is static: build it from all keys at once");
    }

    @Override
    public boolean mightContainHash(long hash) {
        long x = mix(hash, constructionSeed);
        long f = fingerprintOf(x, fpMask);
        f ^= get(position(0, x, segmentCountLength, segmentLength));
        f ^= get(position(1, x, segmentCountLength, segmentLength));
        f ^= get(position(2, x, segmentCountLength, segmentLength));
        return f == 0;
    }

    private long get(long i) {
        long word = fingerprints.getWord(i >>> perWordShift);
        return (word >>> ((i << (perWordShift == 3 ? 3 : 4)) & 63)) & fpMask;
    }

    public int fingerprintBits() {
        return fpBits;
    }

    public int segmentLength() {
        return segmentLength;
    }

    /** Number of fingerprint slots. */
    public long arrayLength() {
        return arrayLength;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        return arrayLength * fpBits;
    }

    @Override
    public double expectedFpp() {
        return Math.pow(2, -fpBits);
    }

    @Override
    public boolean isOffHeap() {
        return fingerprints.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.BINARY_FUSE, strategy, segmentLength, fpBits, arrayLength, count, seed,
                fingerprints.byteSize(), constructionSeed);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        out.writeWords(fingerprints);
    }

    @Override
    public void close() {
        fingerprints.close();
    }

    @Override
    public String toString() {
        return String.format("BinaryFuseFilter[f=%d, n=%d, slots=%d, bits/key=%.2f]", fpBits, count, arrayLength,
                count == 0 ? 0.0 : (double) bitSize() / count);
    }
}
