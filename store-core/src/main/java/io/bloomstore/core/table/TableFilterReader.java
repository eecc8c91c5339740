package io.bloomstore.core.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.stats.StoreCounters;

/**
 * The filter sidecar of one open {@link TableReader} ({@code NNNNNN.filter}, docs/format/filter.md):
 * mapped off-heap (or loaded into native memory when the file system cannot map) when the table
 * opens or by the first lookup that consults it, its payload CRC checked before a filter's first
 * "absent" answer is believed, the prefix and range probes, the summary {@code stats} reports, and
 * the unmapping when the table closes. The key filter is probed by the reader's lookup itself,
 * which counts its answers in the calling thread's tally.
 *
 * <p>Thread safety: safe for concurrent use. Mapping and describing the sidecar hold the owning
 * reader's monitor, the lock its {@link TableReader#close()} holds, so no sidecar is mapped while
 * or after the table closes; the payload check has a lock of its own.
 */
final class TableFilterReader {
    /** The table this is the sidecar of: its monitor, its open check and its level counters. */
    private final TableReader owner;
    private final FileSystem fs;
    private final Path path;
    private final TableProperties props;
    private final StoreCounters counters;
    /** Whether the table has a filter sidecar its reader uses (not for a table opened without it). */
    private final boolean present;
    /** Whether mapping the sidecar checks its whole payload ({@link TableOptions#verifyFilterOnOpen()}). */
    private final boolean verifyPayload;
    /**
     * The sidecar's filters once mapped ({@link #filters()}), {@link LoadedFilters#NONE} for a table
     * without one; null until the first use of a table opened lazily. A compaction reads its input
     * tables without their filters, so a fresh process's first compaction does not wait for the
     * filter memory's start-up (Chronicle Bytes', some 200 ms) where a closing store cannot stop it.
     */
    private volatile LoadedFilters loaded;
    /** {@link #summary()}'s answer, once computed. */
    private volatile FilterSummary summary;
    private final Object payloadCheck = new Object();
    /** Whether the sidecar's payload CRC is known good, so a "no" from the filter can be trusted. */
    private volatile boolean payloadChecked;

    TableFilterReader(TableReader owner, FileSystem fs, Path path, TableProperties props, StoreCounters counters,
                      boolean present, boolean verifyPayload) {
        this.owner = owner;
        this.fs = fs;
        this.path = path;
        this.props = props;
        this.counters = counters;
        this.present = present;
        this.verifyPayload = verifyPayload;
        this.loaded = present ? null : LoadedFilters.NONE;
        // Loading (file systems that cannot map) always checks the payload; mapping checks it only
        // when asked to. Either happens before the filter's first answer ({@link #load}).
        this.payloadChecked = present && (verifyPayload || !fs.supportsMapping());
    }

    boolean present() {
        return present;
    }

    /** The sidecar's filters, mapped by the first call ({@link LoadedFilters#NONE} without a sidecar). */
    LoadedFilters filters() throws IOException {
        LoadedFilters f = loaded;
        return f != null ? f : load(OffHeapBackend.active());
    }

    /**
     * Maps the sidecar now, through {@link OffHeapBackend#readyNow()}, unless it is mapped already
     * or absent: for a table a flush or compaction has just written.
     */
    void mapNow() throws IOException {
        if (loaded == null) {
            load(OffHeapBackend.readyNow());
        }
    }

    /** {@link #filters()} for the accessors that report on the filter, which declare no I/O failure. */
    private LoadedFilters filtersUnchecked() {
        try {
            return filters();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private LoadedFilters load(OffHeapBackend backend) throws IOException {
        synchronized (owner) {
            LoadedFilters f = loaded;
            if (f != null) {
                return f;
            }
            owner.checkOpen();
            FilterSet set = TableFilters.open(fs, path, props, verifyPayload, backend);
            if (verifyPayload || !fs.supportsMapping()) {
                countFileRead();
            }
            f = new LoadedFilters(set);
            loaded = f;
            return f;
        }
    }

    /**
     * Whether a filter's "absent" may be believed: true once the payload CRC is known good, checking
     * it first when nobody has ({@link #checkPayload}).
     */
    boolean absentTrusted() throws IOException {
        return payloadChecked || checkPayload();
    }

    /**
     * Before the first "absent" answer of a filter whose payload was not checked on open: reads the
     * whole sidecar once and checks its CRC, because a flipped payload bit could turn a key the
     * table holds into a false "absent" — a wrong answer no data-block checksum would catch. So
     * opening stays independent of filter size and a damaged filter is reported (a
     * {@link CorruptionException} naming the sidecar), never believed. Returns false when the
     * sidecar is already gone (a table dropped while this lookup held it): the lookup then reads
     * the data block instead of trusting the filter.
     */
    boolean checkPayload() throws IOException {
        synchronized (payloadCheck) {
            if (!payloadChecked) {
                if (!fs.exists(path)) {
                    return false;
                }
                TableFilters.verifyChecksums(fs, path, props);
                countFileRead();
                payloadChecked = true;
            }
            return true;
        }
    }

    /** Whether the table has a filter whose payload no one has checked yet. */
    boolean unchecked() {
        return present && !payloadChecked;
    }

    private void countFileRead() {
        counters.filterFileReads().increment();
        counters.filterFileBytesRead().add(props.filterFileSize());
    }

    /** See {@link TableReader#mayContainPrefix}; the reader has checked that the table is open. */
    boolean mayContainPrefix(byte[] prefix, long prefixHash, PrefixExtractor extractor) throws IOException {
        LoadedFilters f = filters();
        MembershipFilter prefixFilter = f.prefixFilter;
        if (prefixFilter == null || !f.prefixExtractor.equals(extractor)) {
            return true;
        }
        counters.prefixChecked().increment();
        owner.levelCounters().prefixChecked().increment();
        boolean maybe = f.takesKeyHash ? prefixFilter.mightContainHash(prefixHash) : prefixFilter.mightContain(prefix);
        if (!maybe && absentTrusted()) {
            counters.prefixUseful().increment();
            owner.levelCounters().prefixUseful().increment();
            return false;
        }
        return true;
    }

    /** See {@link TableReader#mayContainRange}; the reader has checked that the table is open. */
    boolean mayContainRange(long from, long to) throws IOException {
        RangeFilter rangeFilter = filters().rangeFilter;
        if (rangeFilter == null || Long.compareUnsigned(to - from, rangeFilter.maxRange()) >= 0) {
            return true;
        }
        // A range query walks the filter's own index (select samples, unary buckets): damaged
        // words could send it astray, not just flip an answer, so the payload is checked first.
        if (!absentTrusted()) {
            return true;
        }
        counters.rangeChecked().increment();
        owner.levelCounters().rangeChecked().increment();
        if (!rangeFilter.mightContainRange(from, to)) {
            counters.rangeUseful().increment();
            owner.levelCounters().rangeUseful().increment();
            return false;
        }
        return true;
    }

    /** Whether the table has a prefix filter built by {@code extractor}. */
    boolean hasPrefixFilter(PrefixExtractor extractor) {
        LoadedFilters f = filtersUnchecked();
        return f.prefixFilter != null && f.prefixExtractor.equals(extractor);
    }

    /** Bytes of the sidecar held mapped (or loaded off-heap); 0 without filter or before its first use. */
    long bytes() {
        LoadedFilters f = loaded;
        return f == null || f.set == null ? 0 : props.filterFileSize();
    }

    /** Checks the whole sidecar, when the table has one: its size, header and payload CRC. */
    void verify() throws IOException {
        if (present) {
            TableFilters.verify(fs, path, props);
        }
    }

    /** See {@link FilterSummary}; throws {@link UncheckedIOException} when the sidecar cannot be read. */
    FilterSummary summary() {
        FilterSummary s = summary;
        if (s != null) {
            return s;
        }
        try {
            s = describe();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        summary = s;
        return s;
    }

    /** From the loaded filters when a lookup loaded them, else from the sidecar's headers. */
    private FilterSummary describe() throws IOException {
        synchronized (owner) {
            LoadedFilters f = loaded;
            if (f != null) {
                return FilterSummary.of(f);
            }
            owner.checkOpen();
            FilterSet set = TableFilters.describe(fs, path, props);
            try {
                return FilterSummary.of(new LoadedFilters(set));
            } finally {
                set.close();
            }
        }
    }

    /** Unmaps the filters, if mapped. REQUIRES: the owner's monitor held, by its {@link TableReader#close()}. */
    void unmap() throws IOException {
        LoadedFilters f = loaded;
        if (f != null && f.set != null) {
            f.set.close();
        }
    }
}
