package io.bloomstore.core.table;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.FilterHeader;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.NotAFilterFileException;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.bloom.storage.Storage;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.io.ReadFileChannel;
import io.bloomstore.core.io.WritableFileChannel;

/**
 * Writes and opens a table's filter sidecar ({@code NNNNNN.filter}, docs/format/filter.md),
 * always through the engine's {@link FileSystem}: mapped off-heap when the file system can map
 * files, otherwise loaded into native memory. A table with only a key filter gets a single
 * filter file (format version 1); one with a prefix filter too gets a {@link FilterSet}
 * (version 2) of both. Both versions open.
 *
 * <p>Strictness: a table whose properties record a filter refuses to open when the sidecar is
 * missing, unreadable, of another kind or size, or holds another key count: a
 * {@link CorruptionException} naming the sidecar. Opening without the filter would silently
 * turn every absent-key lookup into a disk read, and a swapped sidecar could answer
 * "absent" for keys the table holds.
 *
 * <p>Thread safety: stateless.
 */
final class TableFilters {
    /** The range section's descriptor: its values are the keys' first 8 bytes, big-endian. */
    static final byte[] RANGE_DESCRIPTOR = "first8".getBytes(StandardCharsets.US_ASCII);

    private TableFilters() {
    }

    /**
     * Builds the filter over {@code hashes[0..count)} and writes it to {@code out}, which the caller
     * syncs and closes; returns the file's size. Built on the heap: it lives only until written,
     * and heap words are cheaper to set.
     */
    static long write(WritableFile out, FilterKind kind, double bitsPerKey, long[] hashes, int count)
            throws IOException {
        try (MembershipFilter filter = Filters.build(kind, bitsPerKey, hashes, count, Storage.HEAP)) {
            return FilterFile.write(filter, new WritableFileChannel(out));
        }
    }

    /**
     * As {@link #write(WritableFile, FilterKind, double, long[], int)}, in a filter set with,
     * when {@code prefixDescriptor} is not null, a filter over the distinct prefix hashes
     * {@code prefixHashes[0..prefixCount)} (same kind and bits per prefix, recorded under the
     * extractor's descriptor) and, when {@code range} is not null, a range filter over the key
     * values {@code values[0..valueCount)}.
     */
    static long write(WritableFile out, FilterKind kind, double bitsPerKey, long[] hashes, int count,
                      byte[] prefixDescriptor, long[] prefixHashes, int prefixCount, RangeFilterOptions range,
                      long[] values, int valueCount) throws IOException {
        List<MembershipFilter> built = new ArrayList<>();
        try {
            List<FilterSet.Spec> specs = new ArrayList<>();
            MembershipFilter keys = Filters.build(kind, bitsPerKey, hashes, count, Storage.HEAP);
            built.add(keys);
            specs.add(new FilterSet.Spec(FilterSet.Role.KEY, new byte[0], keys));
            if (prefixDescriptor != null) {
                MembershipFilter prefixes = Filters.build(kind, bitsPerKey, prefixHashes, prefixCount, Storage.HEAP);
                built.add(prefixes);
                specs.add(new FilterSet.Spec(FilterSet.Role.PREFIX, prefixDescriptor, prefixes));
            }
            if (range != null) {
                MembershipFilter ranges = RangeFilter.build(values, valueCount, range.bitsPerKey(), range.blockBits(),
                        Filters.DEFAULT_SEED, Storage.HEAP);
                built.add(ranges);
                specs.add(new FilterSet.Spec(FilterSet.Role.RANGE, RANGE_DESCRIPTOR, ranges));
            }
            return FilterSet.write(specs, new WritableFileChannel(out));
        } finally {
            built.forEach(MembershipFilter::close);
        }
    }

    /**
     * Opens the sidecar of a table with the given properties, mapped through {@code backend};
     * checks its key filter against them. When the two disagree, either file may be the damaged
     * one: the error names both.
     */
    static FilterSet open(FileSystem fs, Path path, TableProperties props, boolean verifyPayload,
                          OffHeapBackend backend) throws IOException {
        return open(fs, path, props, verifyPayload, false, backend);
    }

    /**
     * As {@link #open}, with the same checks, but the filters only described
     * ({@link FilterSet#describe}): no payload read or mapped, so they answer their parameters and
     * not probes. A file system that cannot map files loads the sidecar whole, as {@link #open}.
     */
    static FilterSet describe(FileSystem fs, Path path, TableProperties props) throws IOException {
        return open(fs, path, props, false, true, null);
    }

    private static FilterSet open(FileSystem fs, Path path, TableProperties props, boolean verifyPayload,
                                  boolean describeOnly, OffHeapBackend backend) throws IOException {
        String table = tableOf(path);
        checkPresentAndSized(fs, path, props);
        FilterSet set = openSet(fs, path, verifyPayload, describeOnly, backend);
        FilterHeader h = set.section(FilterSet.Role.KEY).filter().header();
        if (h.kind() != props.filterKind() || h.n() != props.filterKeys()) {
            set.close();
            throw new CorruptionException(path, 0, "filter sidecar holds a " + h.kind().cliName() + " filter of "
                    + h.n() + " keys; the properties of " + table + " say " + props.filterKind().cliName() + " of "
                    + props.filterKeys());
        }
        return set;
    }

    /**
     * As {@link #describe(FileSystem, Path, TableProperties)} for a table that is not open, whose
     * properties are not at hand: the sidecar's presence and size ({@code size}, as the MANIFEST
     * records it) and its headers are checked, not whether its key filter matches the table's
     * properties (the table's first use checks that). Nothing stays open or mapped once the set
     * is closed.
     */
    static FilterSet describe(FileSystem fs, Path path, long size) throws IOException {
        if (!fs.exists(path)) {
            throw new CorruptionException(path, 0, "filter sidecar is missing (the MANIFEST records one of " + size
                    + " bytes for " + tableOf(path) + ")");
        }
        long actual = fs.size(path);
        if (actual != size) {
            throw new CorruptionException(path, Math.min(actual, size), "filter sidecar has " + actual
                    + " bytes; the MANIFEST records " + size + " for " + tableOf(path));
        }
        return openSet(fs, path, false, true, null);
    }

    /** Opens or describes the sidecar's sections, checking their headers and that a key filter is among them. */
    private static FilterSet openSet(FileSystem fs, Path path, boolean verifyPayload, boolean describeOnly,
                                     OffHeapBackend backend) throws IOException {
        FilterSet set;
        try {
            if (fs.supportsMapping()) {
                set = describeOnly ? FilterSet.describe(path) : FilterSet.open(path, verifyPayload, backend);
            } else {
                try (RandomReadFile in = fs.openRead(path)) {
                    set = FilterSet.load(path, new ReadFileChannel(in), Storage.NATIVE);
                }
            }
        } catch (NotAFilterFileException e) {
            throw new CorruptionException(path, 0, "filter sidecar has no filter magic number", e);
        } catch (NoSuchFileException e) {
            throw new CorruptionException(path, 0, "filter sidecar is missing", e);
        }
        if (set.section(FilterSet.Role.KEY) == null) {
            set.close();
            throw new CorruptionException(path, 0, "filter sidecar holds no key filter");
        }
        return set;
    }

    /** Throws when the sidecar is missing or its length is not the one the table's properties record. */
    private static void checkPresentAndSized(FileSystem fs, Path path, TableProperties props) throws IOException {
        if (!fs.exists(path)) {
            throw new CorruptionException(path, 0, "filter sidecar is missing (the properties of " + tableOf(path)
                    + " record a " + props.filterKind().cliName() + " filter of " + props.filterFileSize() + " bytes)");
        }
        long size = fs.size(path);
        if (size != props.filterFileSize()) {
            throw new CorruptionException(path, Math.min(size, props.filterFileSize()), "filter sidecar has " + size
                    + " bytes; the properties of " + tableOf(path) + " say " + props.filterFileSize());
        }
    }

    /**
     * Reads the whole sidecar and checks its length and every checksum, without mapping it: the
     * check before a filter's first "absent" answer, which a background thread makes ahead for a
     * table just opened. Whether its key filter matches the table's properties is checked when it
     * is mapped ({@link #open}); {@link #verify} checks both.
     */
    static void verifyChecksums(FileSystem fs, Path path, TableProperties props) throws IOException {
        if (!fs.supportsMapping()) {
            verify(fs, path, props);
            return;
        }
        checkPresentAndSized(fs, path, props);
        try {
            FilterSet.verify(path);
        } catch (NotAFilterFileException e) {
            throw new CorruptionException(path, 0, "filter sidecar has no filter magic number", e);
        } catch (NoSuchFileException e) {
            throw new CorruptionException(path, 0, "filter sidecar is missing", e);
        }
    }

    /** The name of the table whose sidecar is {@code filter} ({@code NNNNNN.filter} → {@code NNNNNN.sst}). */
    private static String tableOf(Path filter) {
        String name = filter.getFileName().toString();
        return name.endsWith(TableFileNames.FILTER_SUFFIX)
                ? name.substring(0, name.length() - TableFileNames.FILTER_SUFFIX.length()) + TableFileNames.TABLE_SUFFIX
                : name;
    }

    /** Reads the whole sidecar and checks every checksum. */
    static void verify(FileSystem fs, Path path, TableProperties props) throws IOException {
        if (fs.supportsMapping()) {
            // Headers checked against the properties without mapping anything, then every payload's CRC.
            describe(fs, path, props).close();
            try {
                FilterSet.verify(path);
            } catch (NotAFilterFileException e) {
                throw new CorruptionException(path, 0, "filter sidecar has no filter magic number", e);
            }
        } else {
            open(fs, path, props, true, OffHeapBackend.active()).close();
        }
    }
}
