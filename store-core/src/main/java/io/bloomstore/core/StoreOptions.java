package io.bloomstore.core;

import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.table.Compression;
import io.bloomstore.core.table.TableOptions;

/**
 * Settings of a store, fixed when it is opened. Build with {@link #builder()}; {@link #defaults()}
 * gives:
 * <ul>
 *   <li>{@code createIfMissing} true: a missing directory is created;
 *   <li>{@code memtableBytes} 4 MiB: a memtable past this size is flushed to a table;
 *   <li>{@code blockSize} 4 KiB of uncompressed data per block;
 *   <li>{@code blockCacheBytes} 32 MiB (0 disables the cache);
 *   <li>{@code compression} LZ4;
 *   <li>{@code filterKind} {@link FilterKind#BLOOM} at {@code bitsPerKey} 10 (≈ 0.8% FPR);
 *       null writes tables without filters;
 *   <li>{@code maxKeyBytes} 64 KiB and {@code maxValueBytes} 32 MiB: larger keys or values are
 *       refused with {@link IllegalArgumentException}.
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
public final class StoreOptions {
    public static final int DEFAULT_MAX_KEY_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_VALUE_BYTES = 32 * 1024 * 1024;

    private final boolean createIfMissing;
    private final long memtableBytes;
    private final long blockCacheBytes;
    private final int maxKeyBytes;
    private final int maxValueBytes;
    private final TableOptions tableOptions;

    private StoreOptions(Builder b) {
        if (b.memtableBytes < 1024) {
            throw new IllegalArgumentException("memtableBytes must be at least 1024: " + b.memtableBytes);
        }
        if (b.blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes must not be negative: " + b.blockCacheBytes);
        }
        if (b.maxKeyBytes < 1 || b.maxKeyBytes > DEFAULT_MAX_KEY_BYTES) {
            throw new IllegalArgumentException("maxKeyBytes must be between 1 and " + DEFAULT_MAX_KEY_BYTES + ": "
                    + b.maxKeyBytes);
        }
        if (b.maxValueBytes < 0 || b.maxValueBytes > 1 << 30) {
            throw new IllegalArgumentException("maxValueBytes must be between 0 and 1 GiB: " + b.maxValueBytes);
        }
        this.createIfMissing = b.createIfMissing;
        this.memtableBytes = b.memtableBytes;
        this.blockCacheBytes = b.blockCacheBytes;
        this.maxKeyBytes = b.maxKeyBytes;
        this.maxValueBytes = b.maxValueBytes;
        TableOptions t = TableOptions.defaults().withBlockSize(b.blockSize).withCompression(b.compression);
        this.tableOptions = b.filterKind == null ? t.withoutFilter() : t.withFilter(b.filterKind, b.bitsPerKey);
    }

    public static StoreOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.createIfMissing = createIfMissing;
        b.memtableBytes = memtableBytes;
        b.blockSize = tableOptions.blockSize();
        b.blockCacheBytes = blockCacheBytes;
        b.compression = tableOptions.compression();
        b.filterKind = tableOptions.filterKind();
        b.bitsPerKey = tableOptions.bitsPerKey();
        b.maxKeyBytes = maxKeyBytes;
        b.maxValueBytes = maxValueBytes;
        return b;
    }

    public boolean createIfMissing() {
        return createIfMissing;
    }

    public long memtableBytes() {
        return memtableBytes;
    }

    public int blockSize() {
        return tableOptions.blockSize();
    }

    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    public Compression compression() {
        return tableOptions.compression();
    }

    /** The filter kind of new tables, or null for none. */
    public FilterKind filterKind() {
        return tableOptions.filterKind();
    }

    public double bitsPerKey() {
        return tableOptions.bitsPerKey();
    }

    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    public int maxValueBytes() {
        return maxValueBytes;
    }

    /** The table settings these options imply. */
    public TableOptions tableOptions() {
        return tableOptions;
    }

    /**
     * The false-positive rate the filter promises in theory: 0.6185^bitsPerKey for a standard
     * Bloom filter at its optimal k, the Poisson block formula for a blocked one (512-bit
     * blocks), 1 without filter.
     */
    public double configuredFpr() {
        FilterKind kind = tableOptions.filterKind();
        double bits = tableOptions.bitsPerKey();
        if (kind == null) {
            return 1.0;
        }
        if (kind == FilterKind.BLOCKED_BLOOM) {
            long n = 1_000_000;
            return BloomMath.blockedFpr((long) Math.ceil(bits * n), n, BloomMath.optimalK(bits), 512);
        }
        return BloomMath.fprAtOptimalK(bits);
    }

    @Override
    public String toString() {
        return "StoreOptions[createIfMissing=" + createIfMissing + ", memtableBytes=" + memtableBytes
                + ", blockCacheBytes=" + blockCacheBytes + ", maxKeyBytes=" + maxKeyBytes + ", maxValueBytes="
                + maxValueBytes + ", " + tableOptions + "]";
    }

    /** Collects settings; {@link #build()} checks them. Thread safety: not thread-safe. */
    public static final class Builder {
        private boolean createIfMissing = true;
        private long memtableBytes = 4L << 20;
        private int blockSize = TableOptions.DEFAULT_BLOCK_SIZE;
        private long blockCacheBytes = 32L << 20;
        private Compression compression = Compression.LZ4;
        private FilterKind filterKind = FilterKind.BLOOM;
        private double bitsPerKey = TableOptions.DEFAULT_BITS_PER_KEY;
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;

        private Builder() {
        }

        public Builder createIfMissing(boolean v) {
            createIfMissing = v;
            return this;
        }

        public Builder memtableBytes(long v) {
            memtableBytes = v;
            return this;
        }

        public Builder blockSize(int v) {
            blockSize = v;
            return this;
        }

        public Builder blockCacheBytes(long v) {
            blockCacheBytes = v;
            return this;
        }

        public Builder compression(Compression v) {
            compression = v;
            return this;
        }

        /** The filter kind of new tables (BLOOM or BLOCKED_BLOOM), or null for no filters. */
        public Builder filterKind(FilterKind v) {
            filterKind = v;
            return this;
        }

        public Builder bitsPerKey(double v) {
            bitsPerKey = v;
            return this;
        }

        public Builder maxKeyBytes(int v) {
            maxKeyBytes = v;
            return this;
        }

        public Builder maxValueBytes(int v) {
            maxValueBytes = v;
            return this;
        }

        public StoreOptions build() {
            return new StoreOptions(this);
        }
    }
}
