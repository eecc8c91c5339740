package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Objects;
import java.util.function.LongUnaryOperator;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * The standard Bloom filter: m bits, k probes per key. False positives at about
 * (1 − e^(−kn/m))^k ({@link BloomMath#fpr}); false negatives never.
 *
 * <p>Probes come from one 64-bit hash of the key by double hashing (index_i = h1 + i·h2,
 * reduced onto [0, m)), so a query costs one hash of the key plus k bit reads. Bit indexes
 * are longs: filters past 2^31 bits work. For teaching and for the seeds' worked examples,
 * {@link #withHashFunctions} builds a filter whose probes are caller-supplied functions of
 * the value passed to {@link #addHash}: index_i = f_i(x) mod m.
 *
 * <p>Header use (docs/format/filter.md): {@code k} probes, {@code m} bits, payload = the
 * ⌈m/64⌉ words of the bit array.
 *
 * <p>Thread safety: as {@link MembershipFilter}.
 */
public final class BloomFilter implements MembershipFilter {
    private final BitStore bits;
    private final long m;
    private final int k;
    private final long seed;
    private final HashStrategy strategy;
    private final LongUnaryOperator[] functions;
    private final net.openhft.hashing.LongHashFunction hasher;
    private long count;

    private BloomFilter(BitStore bits, long m, int k, HashStrategy strategy, long seed, long count,
                        LongUnaryOperator[] functions) {
        this.bits = bits;
        this.m = m;
        this.k = k;
        this.strategy = strategy;
        this.seed = seed;
        this.count = count;
        this.functions = functions;
        this.hasher = strategy == HashStrategy.CUSTOM ? HashStrategy.XXH3_64.function(seed) : strategy.function(seed);
    }

    /** A filter for {@code expectedKeys} keys at false-positive rate {@code fpr}, optimal k. */
    public static BloomFilter create(long expectedKeys, double fpr, Storage storage) {
        long m = BloomMath.bitsFor(expectedKeys, fpr);
        return create(m, BloomMath.optimalK(m, expectedKeys), storage);
    }

    /** A filter of {@code m} bits and {@code k} probes, hashed with XXH3 and seed 0. */
    public static BloomFilter create(long m, int k, Storage storage) {
        return create(m, k, HashStrategy.XXH3_64, 0L, storage);
    }

    public static BloomFilter create(long m, int k, HashStrategy strategy, long seed, Storage storage) {
        checkShape(m, k);
        Objects.requireNonNull(storage, "storage");
        if (strategy == HashStrategy.CUSTOM) {
            throw new IllegalArgumentException("use withHashFunctions for caller-supplied hash functions");
        }
        return new BloomFilter(storage.allocate(BitStore.wordsFor(m)), m, k, strategy, seed, 0, null);
    }

    /**
     * A filter whose k = {@code functions.length} probes for a value x are f_i(x) mod m, exactly
     * as the seeds' examples write them. Use {@link #addHash}/{@link #mightContainHash} with x.
     */
    public static BloomFilter withHashFunctions(long m, LongUnaryOperator... functions) {
        return withHashFunctions(m, Storage.HEAP, functions);
    }

    /** As {@link #withHashFunctions(long, LongUnaryOperator...)}, with the bits in {@code storage}. */
    public static BloomFilter withHashFunctions(long m, Storage storage, LongUnaryOperator... functions) {
        checkShape(m, functions.length);
        Objects.requireNonNull(storage, "storage");
        return new BloomFilter(storage.allocate(BitStore.wordsFor(m)), m, functions.length,
                HashStrategy.CUSTOM, 0L, 0, functions.clone());
    }

    /** A filter over existing storage, as {@link FilterFile} opens one. */
    static BloomFilter open(FilterHeader header, FilterPayload payload) throws IOException {
        checkShape(header.m(), header.k());
        if (header.hashStrategy() == HashStrategy.CUSTOM) {
            throw new IllegalArgumentException("a filter built from caller-supplied hash functions cannot be reopened");
        }
        if (payload.length() != BitStore.wordsFor(header.m()) * Long.BYTES) {
            throw new IllegalArgumentException("payload of " + payload.length() + " bytes does not hold m=" + header.m()
                    + " bits exactly");
        }
        BitStore bits = payload.words(0, BitStore.wordsFor(header.m()));
        return new BloomFilter(bits, header.m(), header.k(), header.hashStrategy(), header.seed(), header.n(), null);
    }

    private static void checkShape(long m, int k) {
        if (m < 1) {
            throw new IllegalArgumentException("a Bloom filter needs at least one bit, got m=" + m);
        }
        if (k < 1 || k > 64) {
            throw new IllegalArgumentException("k must be between 1 and 64, got " + k);
        }
    }

    @Override
    public FilterKind kind() {
        return FilterKind.BLOOM;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    @Override
    public boolean addHash(long hash) {
        if (functions != null) {
            for (LongUnaryOperator f : functions) {
                bits.setBit(Math.floorMod(f.applyAsLong(hash), m));
            }
        } else {
            long h2 = Probes.second(hash);
            long h = hash;
            for (int i = 0; i < k; i++) {
                bits.setBit(Probes.reduce(h, m));
                h += h2;
            }
        }
        count++;
        return true;
    }

    @Override
    public boolean mightContainHash(long hash) {
        if (functions != null) {
            for (LongUnaryOperator f : functions) {
                if (!bits.getBit(Math.floorMod(f.applyAsLong(hash), m))) {
                    return false;
                }
            }
            return true;
        }
        long h2 = Probes.second(hash);
        long h = hash;
        for (int i = 0; i < k; i++) {
            if (!bits.getBit(Probes.reduce(h, m))) {
                return false;
            }
            h += h2;
        }
        return true;
    }

    /**
     * Adds every key of {@code other} to this filter (bitwise OR), as web proxies exchange
     * filters in the seeds. Both filters must have the same m, k, hash strategy and seed.
     * The count becomes the sum of both counts, an upper bound on the distinct keys.
     */
    public void union(BloomFilter other) {
        if (other.m != m || other.k != k || other.strategy != strategy || other.seed != seed
                || functions != null || other.functions != null) {
            throw new IllegalArgumentException(String.format(
                    "cannot merge filters with different parameters (m=%d k=%d %s seed=%d vs m=%d k=%d %s seed=%d)",
                    m, k, strategy, seed, other.m, other.k, other.strategy, other.seed));
        }
        bits.orWith(other.bits);
        count += other.count;
    }

    /** Bit {@code index} of the array (for tests and teaching). */
    public boolean bit(long index) {
        return bits.getBit(index);
    }

    /** Number of set bits; about half at the optimal k. */
    public long bitsSet() {
        return bits.bitCount();
    }

    public int k() {
        return k;
    }

    public long m() {
        return m;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        return m;
    }

    @Override
    public double expectedFpp() {
        return BloomMath.fpr(m, count, k);
    }

    @Override
    public boolean isOffHeap() {
        return bits.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.BLOOM, strategy, k, 0, m, count, seed,
                bits.wordCount() * Long.BYTES, 0);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        out.writeWords(bits);
    }

    @Override
    public void close() {
        bits.close();
    }

    @Override
    public String toString() {
        return String.format("BloomFilter[m=%d, k=%d, n=%d, fpp=%.3g]", m, k, count, expectedFpp());
    }
}
