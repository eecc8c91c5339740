package io.bloomstore.cli.bench;

/**
 * Settings of the scan workloads (prefixscan, prefixmissing, rangescan, rangemissing): the
 * prefix structure of the keys and the filters that guard scans. With {@code prefixBytes} 0 the
 * keys have no prefix structure (the layout of {@link KeySpace} without it) and the scan
 * workloads cannot run.
 *
 * <p>Thread safety: immutable.
 *
 * @param prefixBytes     bytes of a key's prefix, 0 to 4; BloomStore gets a fixed prefix extractor
 *                        of this length and RocksDB a fixed-length prefix extractor with its prefix
 *                        Bloom filter
 * @param keysPerPrefix   loaded keys per prefix (consecutive key indices share a prefix)
 * @param rangeLength     numbers spanned by a range of rangescan and rangemissing, 1 to
 *                        {@value #MAX_RANGE_LENGTH} (the gap between neighbouring keys)
 * @param rangeFilterBits BloomStore range filter bits per key, 0 for no range filter
 * @param prefixFilters   whether the engines get their prefix extractors (and so prefix filters) when
 *                        {@code prefixBytes} > 0; false keeps the keys' prefix structure without them,
 *                        to measure what the prefix filters cost the point workloads
 */
public record ScanConfig(int prefixBytes, int keysPerPrefix, int rangeLength, double rangeFilterBits,
                         boolean prefixFilters) {
    /** Keys of one prefix are {@code 2 · 2^}{@value #GAP_BITS} apart in their 4-byte ordinal. */
    public static final int GAP_BITS = 11;
    public static final int MAX_RANGE_LENGTH = 1 << GAP_BITS;
    /** Ordinals are 4 bytes: 2·keysPerPrefix · 2^GAP_BITS must fit. */
    public static final int MAX_KEYS_PER_PREFIX = 1 << (31 - GAP_BITS - 1);

    public ScanConfig {
        if (prefixBytes < 0 || prefixBytes > 4) {
            throw new IllegalArgumentException("--prefix-bytes must be between 0 and 4: " + prefixBytes);
        }
        if (keysPerPrefix < 1 || keysPerPrefix > MAX_KEYS_PER_PREFIX) {
            throw new IllegalArgumentException("--keys-per-prefix must be between 1 and " + MAX_KEYS_PER_PREFIX + ": "
                    + keysPerPrefix);
        }
        if (rangeLength < 1 || rangeLength > MAX_RANGE_LENGTH) {
            throw new IllegalArgumentException("--range-length must be between 1 and " + MAX_RANGE_LENGTH + ": "
                    + rangeLength);
        }
        if (rangeFilterBits != 0 && !(rangeFilterBits >= 3 && rangeFilterBits <= 32)) {
            throw new IllegalArgumentException("--range-filter-bits must be 0 (none) or between 3 and 32: "
                    + rangeFilterBits);
        }
    }

    /** No prefix structure, no range filter: the scan workloads are off. */
    public static ScanConfig none() {
        return new ScanConfig(0, 100, 1024, 0, true);
    }

    public boolean hasPrefixes() {
        return prefixBytes > 0;
    }

    /** Whether the engines run with a fixed prefix extractor of {@link #prefixBytes()}. */
    public boolean prefixExtractor() {
        return prefixFilters && hasPrefixes();
    }
}
