package io.bloomstore.core.table;

import io.bloomstore.bloom.FilterHeader;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.fs.FileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What {@code stats} reports about a table's filters: the key filter's header and expected
 * false-positive rate, each section's bytes, the prefix filter's extractor. Computed once per
 * table by {@link TableReader#filterSummary()}; from the filters in use when they are loaded,
 * else from the sidecar's headers alone ({@link TableFilters#describe}), so reporting on a store
 * does not read every filter's payload (12 MB at 10 M keys, some 20 ms of a one-shot
 * {@code stats}). For a table nobody has opened, {@link #read} reads the same headers without
 * opening the table, so reporting does not undo the store's lazy table open either.
 *
 * <p>Thread safety: immutable.
 *
 * @param header         the key filter's header, or null without filter
 * @param expectedFpr    the rate the key filter expects for the keys it holds; 0 without filter
 * @param keyBytes       bytes of the key filter's section (its header, payload and trailer)
 * @param prefixBytes    bytes of the prefix filter's section, 0 without one
 * @param rangeBytes     bytes of the range filter's section, 0 without one
 * @param prefixExtractor the prefix filter's extractor, or null (none, or one this build cannot name)
 */
public record FilterSummary(FilterHeader header, double expectedFpr, long keyBytes, long prefixBytes,
                            long rangeBytes, PrefixExtractor prefixExtractor) {
    static final FilterSummary NONE = new FilterSummary(null, 0, 0, 0, 0, null);

    /**
     * The summary of table {@code fileNumber}'s filters in {@code dir}, read from its sidecar's
     * headers without opening the table: no {@code .sst} descriptor, no mapping, no payload read;
     * the sidecar is closed again before this returns. {@code filterFileSize} is the sidecar's size
     * as the MANIFEST records it (0: the table has no filter, and nothing is read). Damage in the
     * headers is a {@link io.bloomstore.bloom.CorruptionException} naming the sidecar; whether its
     * key filter matches the table's properties is checked by the table's first use, not here.
     */
    public static FilterSummary read(FileSystem fs, Path dir, long fileNumber, long filterFileSize)
            throws IOException {
        if (filterFileSize == 0) {
            return NONE;
        }
        FilterSet set = TableFilters.describe(fs, dir.resolve(TableFileNames.filter(fileNumber)), filterFileSize);
        try {
            return of(new LoadedFilters(set));
        } finally {
            set.close();
        }
    }

    static FilterSummary of(LoadedFilters f) {
        if (f.set == null) {
            return NONE;
        }
        return new FilterSummary(f.filter.header(), f.filter.expectedFpp(), bytes(f.set, FilterSet.Role.KEY),
                bytes(f.set, FilterSet.Role.PREFIX), bytes(f.set, FilterSet.Role.RANGE), f.prefixExtractor);
    }

    private static long bytes(FilterSet set, FilterSet.Role role) {
        FilterSet.Section s = set.section(role);
        return s == null ? 0 : s.length();
    }
}
