package io.bloomstore.core.table;

import java.util.Arrays;

import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.core.PrefixExtractor;

/**
 * A table's filter sidecar as its lookups use it, once {@link TableReader} has mapped it: the key
 * filter, the prefix filter with the extractor that built it, the range filter, and whether the
 * key filter takes the store's key hash. {@link #NONE} for a table without a sidecar.
 *
 * <p>Thread safety: immutable.
 */
final class LoadedFilters {
    static final LoadedFilters NONE = new LoadedFilters(null);

    final FilterSet set;
    final MembershipFilter filter;
    final MembershipFilter prefixFilter;
    final RangeFilter rangeFilter;
    /** The extractor that built {@link #prefixFilter}, or null (none, or one this build cannot name). */
    final PrefixExtractor prefixExtractor;
    final boolean takesKeyHash;

    LoadedFilters(FilterSet set) {
        this.set = set;
        this.filter = set == null ? null : set.section(FilterSet.Role.KEY).filter();
        FilterSet.Section prefixes = set == null ? null : set.section(FilterSet.Role.PREFIX);
        this.prefixExtractor = prefixes == null ? null : PrefixExtractor.fromDescriptor(prefixes.descriptor());
        this.prefixFilter = prefixExtractor == null ? null : prefixes.filter();
        FilterSet.Section ranges = set == null ? null : set.section(FilterSet.Role.RANGE);
        this.rangeFilter = ranges != null && ranges.filter() instanceof RangeFilter rf
                && Arrays.equals(ranges.descriptor(), TableFilters.RANGE_DESCRIPTOR) ? rf : null;
        this.takesKeyHash = filter != null && filter.header().hashStrategy() == Filters.DEFAULT_STRATEGY
                && filter.header().seed() == Filters.DEFAULT_SEED;
    }
}
