package io.bloomstore.bloom;

import io.bloomstore.bloom.storage.Storage;

/**
 * Factories for every {@link FilterKind}, so callers (the engine, the command line) pick a
 * kind by value. All filters built here hash keys with {@link #hash(byte[])} (XXH3, seed 0),
 * so one hash of a key serves every filter it is checked against.
 *
 * <p>Thread safety: stateless.
 */
public final class Filters {
    public static final HashStrategy DEFAULT_STRATEGY = HashStrategy.XXH3_64;
    public static final long DEFAULT_SEED = 0L;
    private static final net.openhft.hashing.LongHashFunction HASH = DEFAULT_STRATEGY.function(DEFAULT_SEED);

    private Filters() {
    }

    /** The hash every filter built here expects in {@code addHash}/{@code mightContainHash}. */
    public static long hash(byte[] key) {
        return HASH.hashBytes(key);
    }

    /** {@link #hash(byte[])} of {@code key[offset..offset+length)}, without copying it. */
    public static long hash(byte[] key, int offset, int length) {
        return HASH.hashBytes(key, offset, length);
    }

    /** Whether the kind can be built one key at a time (static kinds need every key at once). */
    public static boolean isIncremental(FilterKind kind) {
        return kind != FilterKind.BINARY_FUSE && kind != FilterKind.RIBBON && kind != FilterKind.RANGE
                && kind != FilterKind.ROSETTA;
    }

    /**
     * An empty filter for about {@code expectedKeys} keys at false-positive rate {@code fpr}.
     * REQUIRES: {@link #isIncremental(FilterKind)}.
     */
    public static MembershipFilter create(FilterKind kind, long expectedKeys, double fpr, Storage storage) {
        BloomMath.checkPositive("expected keys", expectedKeys);
        BloomMath.checkRate(fpr);
        switch (kind) {
            case BLOOM:
                return BloomFilter.create(expectedKeys, fpr, storage);
            case BLOCKED_BLOOM:
                return BlockedBloomFilter.create(expectedKeys, fpr, storage);
            case COUNTING_BLOOM:
                return CountingBloomFilter.create(expectedKeys, fpr, storage);
            case SCALABLE_BLOOM:
                return ScalableBloomFilter.create(expectedKeys, fpr, storage);
            case CUCKOO:
                return CuckooFilter.create(expectedKeys, fpr, storage);
            default:
                throw new IllegalArgumentException("filter kind " + kind.cliName() + " is not available in this build");
        }
    }

    /**
     * A filter holding exactly the given key hashes (from {@link #hash(byte[])}), sized at
     * {@code bitsPerKey} bits per key (Bloom kinds), with the widest fingerprints the budget holds
     * (binary fuse: {@link #fuseFingerprintBits}) or at the rate those bits buy a Bloom filter
     * (other kinds). Works for every kind; this is how an SSTable builds its filter.
     */
    public static MembershipFilter build(FilterKind kind, double bitsPerKey, long[] hashes, int count, Storage storage) {
        if (!(bitsPerKey > 0)) {
            throw new IllegalArgumentException("bits per key must be positive: " + bitsPerKey);
        }
        long n = Math.max(1, count);
        switch (kind) {
            case BLOOM: {
                long m = Math.max(64, (long) Math.ceil(bitsPerKey * n));
                BloomFilter f = BloomFilter.create(m, BloomMath.optimalK(bitsPerKey), DEFAULT_STRATEGY, DEFAULT_SEED, storage);
                addAll(f, hashes, count);
                return f;
            }
            case BLOCKED_BLOOM: {
                long m = Math.max(BlockedBloomFilter.BLOCK_BITS, (long) Math.ceil(bitsPerKey * n));
                BlockedBloomFilter f = BlockedBloomFilter.create(m, BlockedBloomFilter.optimalK(bitsPerKey), DEFAULT_STRATEGY,
                        DEFAULT_SEED, storage);
                addAll(f, hashes, count);
                return f;
            }
            case COUNTING_BLOOM:
            case SCALABLE_BLOOM: {
                MembershipFilter f = create(kind, n, BloomMath.fprAtOptimalK(bitsPerKey), storage);
                addAll(f, hashes, count);
                return f;
            }
            case CUCKOO:
                return buildCuckoo(n, BloomMath.fprAtOptimalK(bitsPerKey), hashes, count, storage);
            case BINARY_FUSE:
                return BinaryFuseFilter.build(hashes, count, fuseFingerprintBits(bitsPerKey), storage);
            case RIBBON:
                return RibbonFilter.buildWithin(hashes, count, bitsPerKey, storage);
            case RANGE:
            case ROSETTA:
                throw new IllegalArgumentException("a " + kind.cliName() + " filter is built from key values ("
                        + (kind == FilterKind.RANGE ? "RangeFilter" : "RosettaFilter") + ".build), not from key hashes");
            default:
                throw new IllegalArgumentException("filter kind " + kind.cliName() + " is not available in this build");
        }
    }

    /**
     * Fingerprint width of a static filter for a budget of {@code bitsPerKey} bits per key: 16 bits
     * once the budget holds them (18 bits per key, at 1.125 slots per key), else 8. A budget is
     * memory: matching a Bloom filter's rate instead gave 16-bit fingerprints, about 19 bits per
     * key, to a budget of 12 (where 8 bits spend 9–10.3 and reach 2^−8 = 0.39%, against 0.31% for
     * a 12-bit Bloom filter).
     */
    public static int fuseFingerprintBits(double bitsPerKey) {
        return bitsPerKey >= 16 * 1.125 ? 16 : 8;
    }

    /** The false-positive rate of a binary fuse filter built for {@code bitsPerKey}: 2^−{@link #fuseFingerprintBits}. */
    public static double fuseFpr(double bitsPerKey) {
        return Math.pow(2, -fuseFingerprintBits(bitsPerKey));
    }

    /**
     * The false-positive rate of a ribbon filter built for {@code bitsPerKey} at
     * {@value RibbonFilter#NOMINAL_SLOTS_PER_KEY} slots per key: v = bitsPerKey / 1.1 bits per
     * slot, r = ⌊v⌋ bits for a share 1 − (v − r) of the keys and r + 1 for the rest, so
     * 2^−r · (1 − (v − r)/2); r is 1..32. A filter's own {@link MembershipFilter#expectedFpp}
     * follows the slots its keys needed: lower for small tables, which need fewer.
     */
    public static double ribbonFpr(double bitsPerKey) {
        double v = bitsPerKey / RibbonFilter.NOMINAL_SLOTS_PER_KEY;
        int r = RibbonFilter.resultBitsFor(bitsPerKey);
        double upperShare = r >= 32 ? 0 : Math.max(0, Math.min(1, v - r));
        return Math.pow(2, -r) * (1 - upperShare / 2);
    }

    /** Builds a cuckoo filter; if an insert fails the table grows by an eighth and is rebuilt, so no key is lost. */
    private static MembershipFilter buildCuckoo(long n, double fpr, long[] hashes, int count, Storage storage) {
        CuckooFilter f = CuckooFilter.create(n, fpr, storage);
        while (true) {
            int i = 0;
            while (i < count && f.addHash(hashes[i])) {
                i++;
            }
            if (i == count) {
                return f;
            }
            long buckets = f.capacity() / CuckooFilter.BUCKET_SIZE * 9 / 8 + 1;
            int bits = f.fingerprintBits();
            f.close();
            f = CuckooFilter.create(buckets, bits, storage);
        }
    }

    private static void addAll(MembershipFilter f, long[] hashes, int count) {
        for (int i = 0; i < count; i++) {
            f.addHash(hashes[i]);
        }
    }
}
