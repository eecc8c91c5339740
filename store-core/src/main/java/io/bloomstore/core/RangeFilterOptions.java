package io.bloomstore.core;

import io.bloomstore.bloom.RangeFilter;

/**
 * Settings of the tables' range filters ({@link StoreOptions.Builder#rangeFilter}): a
 * {@link RangeFilter} per table over its keys' first 8 bytes, read as a big-endian number, so an
 * {@link Store#iterator(byte[], byte[]) iterator(from, to)} whose bounds span at most
 * 2^{@code blockBits} such numbers skips every table the filter rules out before reading any of
 * its blocks, even when the range starts right past a key the table holds.
 *
 * <p>False-positive rate of an empty range spanning ℓ numbers: about ℓ / 2^(bitsPerKey − 2)
 * (point ranges: 2^−(bitsPerKey − 2)); memory bitsPerKey + 0.25 bits per distinct 8-byte key
 * head. So ranges of up to 2^10 numbers at 1% need about 19 bits per key; ranges of 2^16 about 25.
 *
 * <p>Thread safety: immutable.
 *
 * @param bitsPerKey bits per distinct 8-byte key head, 3 to {@value RangeFilter#MAX_BITS_PER_VALUE}
 * @param blockBits  log2 of the longest range the filter answers, 0 to {@value RangeFilter#MAX_BLOCK_BITS}
 */
public record RangeFilterOptions(double bitsPerKey, int blockBits) {
    /** Ranges of up to 2^16 numbers in the first 8 key bytes. */
    public static final int DEFAULT_BLOCK_BITS = 16;

    public RangeFilterOptions {
        if (!(bitsPerKey >= 3 && bitsPerKey <= RangeFilter.MAX_BITS_PER_VALUE)) {
            throw new IllegalArgumentException("range filter bits per key must be in [3, "
                    + RangeFilter.MAX_BITS_PER_VALUE + "]: " + bitsPerKey);
        }
        if (blockBits < 0 || blockBits > RangeFilter.MAX_BLOCK_BITS) {
            throw new IllegalArgumentException("range filter block bits must be in [0, " + RangeFilter.MAX_BLOCK_BITS
                    + "]: " + blockBits);
        }
    }

    /** A range filter at {@code bitsPerKey} for ranges of up to 2^16 numbers. */
    public static RangeFilterOptions of(double bitsPerKey) {
        return new RangeFilterOptions(bitsPerKey, DEFAULT_BLOCK_BITS);
    }

    /** Numbers in the first 8 key bytes the longest answered range may span: 2^blockBits. */
    public long maxRange() {
        return 1L << blockBits;
    }
}
