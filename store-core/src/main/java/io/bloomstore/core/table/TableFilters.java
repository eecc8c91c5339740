package io.bloomstore.core.table;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.FilterHeader;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.NotAFilterFileException;
import io.bloomstore.bloom.storage.Storage;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.io.ReadFileChannel;
import io.bloomstore.core.io.WritableFileChannel;

/**
 * Writes and opens a table's filter sidecar ({@code NNNNNN.filter}, docs/format/filter.md),
 * always through the engine's {@link FileSystem}: mapped off-heap when the file system can map
 * files, otherwise loaded into native memory.
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
    private TableFilters() {
    }

    /**
     * Builds the filter over {@code hashes[0..count)} and writes it durably; returns the file's size.
     * Built on the heap: it lives only until written, and heap words are cheaper to set.
     */
    static long write(FileSystem fs, Path path, FilterKind kind, double bitsPerKey, long[] hashes, int count)
            throws IOException {
        try (MembershipFilter filter = Filters.build(kind, bitsPerKey, hashes, count, Storage.HEAP);
             WritableFile out = fs.create(path)) {
            long size = FilterFile.write(filter, new WritableFileChannel(out));
            out.sync();
            return size;
        }
    }

    /** Opens the sidecar of a table with the given properties; checks it against them. */
    static MembershipFilter open(FileSystem fs, Path path, TableProperties props, boolean verifyPayload)
            throws IOException {
        if (!fs.exists(path)) {
            throw new CorruptionException(path, 0, "filter sidecar is missing (the table's properties record a "
                    + props.filterKind().cliName() + " filter of " + props.filterFileSize() + " bytes)");
        }
        long size = fs.size(path);
        if (size != props.filterFileSize()) {
            throw CorruptionException.mismatch(path, Math.min(size, props.filterFileSize()), "filter sidecar size",
                    props.filterFileSize(), size);
        }
        MembershipFilter filter;
        try {
            if (fs.supportsMapping()) {
                filter = FilterFile.open(path, verifyPayload);
            } else {
                try (RandomReadFile in = fs.openRead(path)) {
                    filter = FilterFile.load(path, new ReadFileChannel(in), Storage.NATIVE);
                }
            }
        } catch (NotAFilterFileException e) {
            throw new CorruptionException(path, 0, "filter sidecar has no filter magic number", e);
        } catch (NoSuchFileException e) {
            throw new CorruptionException(path, 0, "filter sidecar is missing", e);
        }
        FilterHeader h = filter.header();
        if (h.kind() != props.filterKind() || h.n() != props.filterKeys()) {
            filter.close();
            throw new CorruptionException(path, 0, "filter sidecar holds a " + h.kind().cliName() + " filter of "
                    + h.n() + " keys; the table's properties say " + props.filterKind().cliName() + " of "
                    + props.filterKeys());
        }
        return filter;
    }

    /** Reads the whole sidecar and checks every checksum. */
    static void verify(FileSystem fs, Path path, TableProperties props) throws IOException {
        if (fs.supportsMapping()) {
            open(fs, path, props, false).close();
            try {
                FilterFile.verify(path);
            } catch (NotAFilterFileException e) {
                throw new CorruptionException(path, 0, "filter sidecar has no filter magic number", e);
            }
        } else {
            open(fs, path, props, true).close();
        }
    }
}
