package io.bloomstore.bloom;

import java.io.IOException;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A cache-line-blocked Bloom filter (Putze, Sanders &amp; Singler): the bit array is cut into
 * 512-bit blocks (one 64-byte cache line) and all k probes of a key fall inside the one block
 * its hash picks, so a query costs one cache miss however large k is. The block comes from the
 * high bits of the key's hash; the probes inside it are 9-bit fields of
 * {@link Probes#mix mixed} copies of the hash, 7 per copy. (Double hashing inside a block,
 * a + i·b mod 512, has too few distinct patterns: it measured 25% above theory.) The price is a slightly
 * higher false-positive rate than the standard filter at the same memory
 * ({@link BloomMath#blockedFpr}); false negatives still never happen.
 *
 * <p>Header use (docs/format/filter.md): {@code k} probes, {@code m} bits (a multiple of
 * 512), payload = the m/64 words, block b occupying words 8b..8b+7.
 *
 * <p>Thread safety: as {@link MembershipFilter}.
 */
public final class BlockedBloomFilter implements MembershipFilter {
    /** Bits per block: one 64-byte cache line. */
    public static final int BLOCK_BITS = 512;
    private static final int WORDS_PER_BLOCK = BLOCK_BITS / 64;
    /** Bits that address one bit of a block. */
    private static final int PROBE_BITS = 9;
    /** Probes cut from one mixed 64-bit value (7 × 9 = 63 bits) before mixing again. */
    private static final int PROBES_PER_MIX = 64 / PROBE_BITS;

    private final BitStore bits;
    private final long blocks;
    private final int k;
    private final long seed;
    private final HashStrategy strategy;
    private final net.openhft.hashing.LongHashFunction hasher;
    private long count;

    private BlockedBloomFilter(BitStore bits, long blocks, int k, HashStrategy strategy, long seed, long count) {
        this.bits = bits;
        this.blocks = blocks;
        this.k = k;
        this.strategy = strategy;
        this.seed = seed;
        this.count = count;
        this.hasher = strategy.function(seed);
    }

    /** Most probes per key a blocked filter accepts (more would crowd one 512-bit block for no gain). */
    public static final int MAX_K = 32;

    /**
     * Probes per key for a table filter of {@code bitsPerKey}: the standard filter's optimum,
     * capped at {@link #MAX_K} (reached only past about 46 bits per key).
     */
    public static int optimalK(double bitsPerKey) {
        return Math.min(MAX_K, BloomMath.optimalK(bitsPerKey));
    }

    /** A filter for {@code expectedKeys} keys with the standard filter's memory for {@code fpr}. */
    public static BlockedBloomFilter create(long expectedKeys, double fpr, Storage storage) {
        long m = BloomMath.bitsFor(expectedKeys, fpr);
        return create(m, BloomMath.optimalK(m, expectedKeys), HashStrategy.XXH3_64, 0L, storage);
    }

    /** A filter of at least {@code m} bits (rounded up to whole blocks) and {@code k} probes. */
    public static BlockedBloomFilter create(long m, int k, HashStrategy strategy, long seed, Storage storage) {
        if (m < 1) {
            throw new IllegalArgumentException("a Bloom filter needs at least one bit, got m=" + m);
        }
        if (k < 1 || k > MAX_K) {
            throw new IllegalArgumentException("k must be between 1 and 32 for a blocked filter, got " + k);
        }
        if (strategy == HashStrategy.CUSTOM) {
            throw new IllegalArgumentException("a blocked filter uses a built-in hash strategy");
        }
        long blocks = (m + BLOCK_BITS - 1) / BLOCK_BITS;
        return new BlockedBloomFilter(storage.allocate(blocks * WORDS_PER_BLOCK), blocks, k, strategy, seed, 0);
    }

    static BlockedBloomFilter open(FilterHeader header, FilterPayload payload) throws IOException {
        if (header.m() < BLOCK_BITS || header.m() % BLOCK_BITS != 0 || header.k() < 1 || header.k() > MAX_K) {
            throw new IllegalArgumentException("bad blocked filter shape m=" + header.m() + " k=" + header.k());
        }
        long blocks = header.m() / BLOCK_BITS;
        if (payload.length() != blocks * WORDS_PER_BLOCK * Long.BYTES) {
            throw new IllegalArgumentException("payload of " + payload.length() + " bytes does not hold m=" + header.m()
                    + " bits exactly");
        }
        BitStore bits = payload.words(0, blocks * WORDS_PER_BLOCK);
        return new BlockedBloomFilter(bits, blocks, header.k(), header.hashStrategy(), header.seed(), header.n());
    }

    @Override
    public FilterKind kind() {
        return FilterKind.BLOCKED_BLOOM;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    @Override
    public boolean addHash(long hash) {
        long base = Probes.reduce(hash, blocks) * WORDS_PER_BLOCK;
        long x = 0;
        for (int i = 0; i < k; i++) {
            if (i % PROBES_PER_MIX == 0) {
                x = Probes.mix(hash + i * Probes.GOLDEN);
            }
            int bit = (int) x & (BLOCK_BITS - 1);
            long w = base + (bit >>> 6);
            bits.setWord(w, bits.getWord(w) | (1L << bit));
            x >>>= PROBE_BITS;
        }
        count++;
        return true;
    }

    @Override
    public boolean mightContainHash(long hash) {
        long base = Probes.reduce(hash, blocks) * WORDS_PER_BLOCK;
        long x = 0;
        for (int i = 0; i < k; i++) {
            if (i % PROBES_PER_MIX == 0) {
                x = Probes.mix(hash + i * Probes.GOLDEN);
            }
            int bit = (int) x & (BLOCK_BITS - 1);
            if ((bits.getWord(base + (bit >>> 6)) & (1L << bit)) == 0) {
                return false;
            }
            x >>>= PROBE_BITS;
        }
        return true;
    }

    /** Bitwise OR of another blocked filter with the same m, k, hash strategy and seed. */
    public void union(BlockedBloomFilter other) {
        if (other.blocks != blocks || other.k != k || other.strategy != strategy || other.seed != seed) {
            throw new IllegalArgumentException("cannot merge blocked filters with different parameters");
        }
        bits.orWith(other.bits);
        count += other.count;
    }

    public int k() {
        return k;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        return blocks * BLOCK_BITS;
    }

    @Override
    public double expectedFpp() {
        return BloomMath.blockedFpr(bitSize(), count, k, BLOCK_BITS);
    }

    @Override
    public boolean isOffHeap() {
        return bits.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.BLOCKED_BLOOM, strategy, k, 0, bitSize(), count, seed,
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
        return String.format("BlockedBloomFilter[m=%d, k=%d, n=%d, fpp=%.3g]", bitSize(), k, count, expectedFpp());
    }
}
