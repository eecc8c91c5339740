package io.bloomstore.core;

import io.bloomstore.bloom.FilterKind;
import java.time.Duration;
import java.util.Objects;

/**
 * What a keyspace sets for itself ({@link Store#keyspace(String, KeyspaceOptions)}); everything
 * else — and every setting left unset here — is the store's {@link StoreOptions}. Each setting
 * means what the {@link StoreOptions.Builder} method of the same name says, for this keyspace's
 * tables, reads and compactions only: filter kind and bits per key, filter policy, prefix
 * extractor, range filter, compression, memtable size, merge operator, compaction filter and TTL.
 * The store's rules for combining them hold per keyspace (a TTL with a merge operator is refused).
 *
 * <p>A keyspace's options are fixed while a store is open, as RocksDB fixes a column family's at
 * open: a keyspace that exists when the store opens takes those given for its name with
 * {@link StoreOptions.Builder#keyspaceOptions(String, KeyspaceOptions)}, or the store's own.
 *
 * <p>Thread safety: immutable.
 */
public final class KeyspaceOptions {
    /** Every setting the store's. */
    public static final KeyspaceOptions DEFAULT = builder().build();

    private final FilterKind filterKind;
    private final boolean noFilter;
    private final Double bitsPerKey;
    private final FilterPolicy filterPolicy;
    private final PrefixExtractor prefixExtractor;
    private final RangeFilterOptions rangeFilter;
    private final Compression compression;
    private final Long memtableBytes;
    private final MergeOperator mergeOperator;
    private final CompactionFilter compactionFilter;
    private final Duration ttl;

    private KeyspaceOptions(Builder b) {
        this.filterKind = b.filterKind;
        this.noFilter = b.noFilter;
        this.bitsPerKey = b.bitsPerKey;
        this.filterPolicy = b.filterPolicy;
        this.prefixExtractor = b.prefixExtractor;
        this.rangeFilter = b.rangeFilter;
        this.compression = b.compression;
        this.memtableBytes = b.memtableBytes;
        this.mergeOperator = b.mergeOperator;
        this.compactionFilter = b.compactionFilter;
        this.ttl = b.ttl;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The store's options with this keyspace's settings in place of the store's.
     *
     * @throws IllegalArgumentException when the combination is one the store refuses
     */
    public StoreOptions over(StoreOptions store) {
        StoreOptions.Builder b = store.toBuilder();
        if (noFilter) {
            b.filterKind(null);
        } else if (filterKind != null) {
            b.filterKind(filterKind);
        }
        if (bitsPerKey != null) {
            b.bitsPerKey(bitsPerKey);
        }
        if (filterPolicy != null) {
            b.filterPolicy(filterPolicy);
        }
        if (prefixExtractor != null) {
            b.prefixExtractor(prefixExtractor);
        }
        if (rangeFilter != null) {
            b.rangeFilter(rangeFilter);
        }
        if (compression != null) {
            b.compression(compression);
        }
        if (memtableBytes != null) {
            b.memtableBytes(memtableBytes);
        }
        if (mergeOperator != null) {
            b.mergeOperator(mergeOperator);
        }
        if (compactionFilter != null) {
            b.compactionFilter(compactionFilter);
        }
        if (ttl != null) {
            b.ttl(ttl);
        }
        return b.build();
    }

    public MergeOperator mergeOperator() {
        return mergeOperator;
    }

    public Duration ttl() {
        return ttl;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyspaceOptions k && noFilter == k.noFilter && Objects.equals(filterKind, k.filterKind)
                && Objects.equals(bitsPerKey, k.bitsPerKey) && Objects.equals(filterPolicy, k.filterPolicy)
                && Objects.equals(prefixExtractor, k.prefixExtractor) && Objects.equals(rangeFilter, k.rangeFilter)
                && Objects.equals(compression, k.compression) && Objects.equals(memtableBytes, k.memtableBytes)
                && Objects.equals(mergeOperator, k.mergeOperator)
                && Objects.equals(compactionFilter, k.compactionFilter) && Objects.equals(ttl, k.ttl);
    }

    @Override
    public int hashCode() {
        return Objects.hash(filterKind, noFilter, bitsPerKey, compression, memtableBytes, ttl);
    }

    @Override
    public String toString() {
        return "KeyspaceOptions[" + (noFilter ? "no filter, " : filterKind == null ? "" : "filter " + filterKind + ", ")
                + (bitsPerKey == null ? "" : bitsPerKey + " bits/key, ")
                + (filterPolicy == null ? "" : "policy " + filterPolicy.name() + ", ")
                + (prefixExtractor == null ? "" : "prefix extractor, ") + (rangeFilter == null ? "" : "range filter, ")
                + (compression == null ? "" : compression + ", ")
                + (memtableBytes == null ? "" : "memtable " + memtableBytes + " B, ")
                + (mergeOperator == null ? "" : "merge operator " + mergeOperator.name() + ", ")
                + (compactionFilter == null ? "" : "compaction filter, ") + (ttl == null ? "" : "TTL " + ttl + ", ")
                + "the rest the store's]";
    }

    /** Builds {@link KeyspaceOptions}; a setting not called stays the store's. */
    public static final class Builder {
        private FilterKind filterKind;
        private boolean noFilter;
        private Double bitsPerKey;
        private FilterPolicy filterPolicy;
        private PrefixExtractor prefixExtractor;
        private RangeFilterOptions rangeFilter;
        private Compression compression;
        private Long memtableBytes;
        private MergeOperator mergeOperator;
        private CompactionFilter compactionFilter;
        private Duration ttl;

        private Builder() {
        }

        /** The filter kind of the keyspace's tables; null for none. */
        public Builder filterKind(FilterKind v) {
            filterKind = v;
            noFilter = v == null;
            return this;
        }

        public Builder bitsPerKey(double v) {
            bitsPerKey = v;
            return this;
        }

        public Builder filterPolicy(FilterPolicy v) {
            filterPolicy = Objects.requireNonNull(v, "filterPolicy");
            return this;
        }

        public Builder prefixExtractor(PrefixExtractor v) {
            prefixExtractor = Objects.requireNonNull(v, "prefixExtractor");
            return this;
        }

        public Builder rangeFilter(RangeFilterOptions v) {
            rangeFilter = Objects.requireNonNull(v, "rangeFilter");
            return this;
        }

        public Builder compression(Compression v) {
            compression = Objects.requireNonNull(v, "compression");
            return this;
        }

        /** The size at which the keyspace's memtable is switched (every keyspace's switches with it). */
        public Builder memtableBytes(long v) {
            memtableBytes = v;
            return this;
        }

        public Builder mergeOperator(MergeOperator v) {
            mergeOperator = Objects.requireNonNull(v, "mergeOperator");
            return this;
        }

        public Builder compactionFilter(CompactionFilter v) {
            compactionFilter = Objects.requireNonNull(v, "compactionFilter");
            return this;
        }

        /** Entries older than {@code v} are never read and are dropped by compaction (as {@link StoreOptions.Builder#ttl}). */
        public Builder ttl(Duration v) {
            ttl = Objects.requireNonNull(v, "ttl");
            return this;
        }

        public KeyspaceOptions build() {
            return new KeyspaceOptions(this);
        }
    }
}
