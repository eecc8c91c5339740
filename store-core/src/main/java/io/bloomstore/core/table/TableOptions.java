package io.bloomstore.core.table;

import io.bloomstore.core.Compression;
import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.StoreOptions;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;

/**
 * How tables are written and opened. Immutable; change one setting with the {@code with*}
 * methods. {@link #defaults()}: 4 KiB blocks, restart interval 16, LZ4, a standard Bloom
 * filter at 10 bits per key, filter payload checksum not verified on open.
 *
 * <p>Only writing uses the block, compression and filter settings: a reader takes them from
 * the table's properties block, so tables written with other options stay readable.
 *
 * <p>Thread safety: immutable.
 *
 * @param blockSize          target uncompressed size of a data block in bytes; a block is
 *                           cut once it reaches this size (one large entry makes a larger block)
 * @param restartInterval    keys between restart points in data blocks
 * @param compression        block compression
 * @param filterKind         the filter built for each table, or null for tables without filter
 * @param bitsPerKey         filter bits per distinct user key
 * @param verifyFilterOnOpen whether opening a table reads the whole filter sidecar to check its
 *                           payload CRC; by default only its header, length and trailer are
 *                           checked so opening costs the same whatever the filter's size, and
 *                           the payload is checked once before the filter's first "absent"
 *                           answer is believed (and by {@link TableReader#verify()})
 * @param prefixExtractor    when not null, a table with a filter also gets a filter of its keys'
 *                           distinct prefixes, of the same kind and bits per prefix, in the same
 *                           sidecar (filter format version 2)
 * @param rangeFilter        when not null, a table with a filter also gets a range filter over its
 *                           keys' first 8 bytes in the same sidecar
 */
public record TableOptions(int blockSize, int restartInterval, Compression compression, FilterKind filterKind,
                           double bitsPerKey, boolean verifyFilterOnOpen, PrefixExtractor prefixExtractor,
                           RangeFilterOptions rangeFilter) {
    public static final int DEFAULT_BLOCK_SIZE = 4096;
    public static final int DEFAULT_RESTART_INTERVAL = 16;
    public static final double DEFAULT_BITS_PER_KEY = 10.0;
    /** Bits per key above this are a mistake (a static filter needs ~1.15 · log2(1/ε)). */
    public static final double MAX_BITS_PER_KEY = 64.0;
    /**
     * Kinds a table may carry: the Bloom kinds, and the static ribbon and binary fuse filters (a
     * table's key set never changes, so a filter built once from all its key hashes fits it; at
     * the bits a Bloom filter would get it reaches a lower rate, see
     * {@link io.bloomstore.bloom.Filters#build}).
     */
    public static final Set<FilterKind> TABLE_FILTER_KINDS = Collections.unmodifiableSet(
            EnumSet.of(FilterKind.BLOOM, FilterKind.BLOCKED_BLOOM, FilterKind.BINARY_FUSE, FilterKind.RIBBON));

    public TableOptions {
        if (blockSize < 64 || blockSize > (64 << 20)) {
            throw new IllegalArgumentException("block size must be between 64 bytes and 64 MiB: " + blockSize);
        }
        if (restartInterval < 1 || restartInterval > 1024) {
            throw new IllegalArgumentException("restart interval must be between 1 and 1024: " + restartInterval);
        }
        if (compression == null) {
            throw new IllegalArgumentException("compression must not be null (use Compression.NONE)");
        }
        if (filterKind != null) {
            if (!(bitsPerKey > 0 && bitsPerKey <= MAX_BITS_PER_KEY)) {
                throw new IllegalArgumentException("bits per key must be in (0, " + MAX_BITS_PER_KEY + "]: " + bitsPerKey);
            }
            if (!TABLE_FILTER_KINDS.contains(filterKind)) {
                throw new IllegalArgumentException("filter kind " + filterKind.cliName()
                        + " cannot be built for a table; use one of " + TABLE_FILTER_KINDS);
            }
        }
    }

    public static TableOptions defaults() {
        return new TableOptions(DEFAULT_BLOCK_SIZE, DEFAULT_RESTART_INTERVAL, Compression.LZ4, FilterKind.BLOOM,
                DEFAULT_BITS_PER_KEY, false, null, null);
    }

    public TableOptions withBlockSize(int bytes) {
        return new TableOptions(bytes, restartInterval, compression, filterKind, bitsPerKey, verifyFilterOnOpen,
                prefixExtractor, rangeFilter);
    }

    public TableOptions withRestartInterval(int keys) {
        return new TableOptions(blockSize, keys, compression, filterKind, bitsPerKey, verifyFilterOnOpen,
                prefixExtractor, rangeFilter);
    }

    public TableOptions withCompression(Compression c) {
        return new TableOptions(blockSize, restartInterval, c, filterKind, bitsPerKey, verifyFilterOnOpen,
                prefixExtractor, rangeFilter);
    }

    /** Tables get a filter of this kind at this many bits per distinct user key. */
    public TableOptions withFilter(FilterKind kind, double bits) {
        if (kind == null) {
            throw new IllegalArgumentException("filter kind must not be null (use withoutFilter())");
        }
        return new TableOptions(blockSize, restartInterval, compression, kind, bits, verifyFilterOnOpen,
                prefixExtractor, rangeFilter);
    }

    /** Tables are written without filter: every lookup in range reads a data block. */
    /** The base table settings of a store: its block size, compression and uniform filter. */
    public static TableOptions of(StoreOptions store) {
        TableOptions t = defaults().withBlockSize(store.blockSize()).withCompression(store.compression())
                .withPrefixExtractor(store.prefixExtractor()).withRangeFilter(store.rangeFilter());
        return store.filterKind() == null ? t.withoutFilter() : t.withFilter(store.filterKind(), store.bitsPerKey());
    }

    /** These settings with the filter a {@link FilterChoice} picks for a table's level (none when skipped). */
    public TableOptions withFilter(FilterChoice choice) {
        return choice.builds() ? withFilter(choice.kind(), choice.bitsPerKey()) : withoutFilter();
    }

    public TableOptions withoutFilter() {
        return new TableOptions(blockSize, restartInterval, compression, null, bitsPerKey, verifyFilterOnOpen,
                prefixExtractor, rangeFilter);
    }

    public TableOptions withVerifyFilterOnOpen(boolean verify) {
        return new TableOptions(blockSize, restartInterval, compression, filterKind, bitsPerKey, verify,
                prefixExtractor, rangeFilter);
    }

    /** Tables with a filter also get a prefix filter cut by this extractor (null: none). */
    public TableOptions withPrefixExtractor(PrefixExtractor extractor) {
        return new TableOptions(blockSize, restartInterval, compression, filterKind, bitsPerKey, verifyFilterOnOpen,
                extractor, rangeFilter);
    }

    /** Tables with a filter also get a range filter of these settings (null: none). */
    public TableOptions withRangeFilter(RangeFilterOptions range) {
        return new TableOptions(blockSize, restartInterval, compression, filterKind, bitsPerKey, verifyFilterOnOpen,
                prefixExtractor, range);
    }

    public boolean hasFilter() {
        return filterKind != null;
    }
}
