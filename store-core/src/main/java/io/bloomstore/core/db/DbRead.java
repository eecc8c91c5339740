package io.bloomstore.core.db;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.LevelShape;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.memtable.InternalKey;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstones;
import io.bloomstore.core.stats.LevelCounters;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.stats.ThreadTally;
import io.bloomstore.core.table.FilterSummary;
import io.bloomstore.core.table.TableLookup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The read path of an open store: point lookups (memtables, then level 0 newest first, then one
 * candidate table per deeper level, each behind its key range and filter), iterators, snapshots
 * and the statistics snapshot.
 *
 * <p>Thread safety: safe for concurrent use and lock-free: a get holds the current
 * {@link ReadView}'s tables through its thread's slot in the {@link ViewCache} (an iterator
 * retains them itself) and reads the published sequence number, both volatile; only taking a
 * snapshot takes the mutex.
 */
final class DbRead {
    private final DbState db;

    DbRead(DbState db) {
        this.db = db;
    }

    byte[] get(byte[] key, ReadOptions readOptions) throws IOException {
        ViewCache.Slot slot = db.readers.slot();
        while (true) {
            ReadView v = db.readers.acquire(slot);
            try {
                long snapshot = sequenceFor(readOptions, v);
                if (snapshot >= 0) {
                    return get(v, key, snapshot, slot.tally);
                }
            } finally {
                db.readers.release(slot, v);
            }
        }
    }

    private byte[] get(ReadView v, byte[] key, long snapshot, ThreadTally tally) throws IOException {
        tally.add(StoreCounters.GETS);
        // One hash of the key serves the memtables' filters and every table's.
        long hash = Filters.hash(key);
        TableLookup r = find(v, key, hash, snapshot, tally);
        if (r == null || rangeDeleted(v, key, r.sequence(), snapshot)) {
            return null;
        }
        // Not a switch on the enum: that would load a synthetic class on a one-shot get.
        ValueType type = r.type();
        if (type == ValueType.VALUE) {
            // The memtable's value and a table's are copies of their own: the caller owns them.
            return r.value();
        } else if (type == ValueType.TIMED_VALUE) {
            return db.rules.readTimed(r.value());
        } else if (type.isMerge()) {
            return merged(v, key, hash, snapshot, tally);
        }
        return null;
    }

    /**
     * The newest entry for {@code key} at {@code snapshot}: memtables, then level 0 newest first,
     * then one candidate table per deeper level; null when none holds one.
     */
    private TableLookup find(ReadView v, byte[] key, long hash, long snapshot, ThreadTally tally) throws IOException {
        Map.Entry<InternalKey, byte[]> e = v.mem().get(key, hash, snapshot);
        for (int i = v.immutables().size() - 1; e == null && i >= 0; i--) {
            e = v.immutables().get(i).get(key, hash, snapshot);
        }
        if (e != null) {
            return new TableLookup(e.getKey().type(), e.getKey().sequence(), e.getValue());
        }
        Version version = v.version();
        VersionRef tables = v.tables();
        int level0 = version.files(0).size();
        // The key's first 8 bytes decide every range check but ties.
        long head = Version.head(key);
        for (int i = 0; i < level0; i++) {
            if (version.level0Covers(i, key, head)) {
                TableLookup r = lookup(0, tables.handle(0, i), key, hash, snapshot, tally);
                if (r != null) {
                    return r;
                }
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            int i = version.candidateIndex(level, key, head);
            if (i >= 0) {
                TableLookup r = lookup(level, tables.handle(level, i), key, hash, snapshot, tally);
                if (r != null) {
                    return r;
                }
            }
        }
        return null;
    }

    /**
     * The value of a key whose newest entry at the snapshot is a merge operand: its operands are
     * gathered newest first down to a value, a tombstone or nothing — walking each memtable's
     * versions of the key, then looking up each table again just below the last operand's sequence
     * number until it has no older version (a key's older versions are always in the same source
     * or a later one) — and the store's operator merges them.
     */
    private byte[] merged(ReadView v, byte[] key, long hash, long snapshot, ThreadTally tally) throws IOException {
        MergeLookup m = new MergeLookup(db.rules, key, snapshot, v.rangeDeletions());
        m.collect(v.mem());
        for (int i = v.immutables().size() - 1; !m.done() && i >= 0; i--) {
            m.collect(v.immutables().get(i));
        }
        Version version = v.version();
        VersionRef tables = v.tables();
        long head = Version.head(key);
        for (int i = 0; !m.done() && i < version.files(0).size(); i++) {
            if (version.level0Covers(i, key, head)) {
                collect(m, 0, tables.handle(0, i), key, hash, tally);
            }
        }
        for (int level = 1; !m.done() && level < Version.NUM_LEVELS; level++) {
            int i = version.candidateIndex(level, key, head);
            if (i >= 0) {
                collect(m, level, tables.handle(level, i), key, hash, tally);
            }
        }
        return m.result();
    }

    /** Adds one table's versions of the key below the merge's last operand, newest first. */
    private static void collect(MergeLookup m, int level, TableHandle table, byte[] key, long hash, ThreadTally tally)
            throws IOException {
        while (!m.done()) {
            TableLookup r = lookup(level, table, key, hash, m.below(), tally);
            if (r == null) {
                return;
            }
            m.add(r.type(), r.sequence(), r.value());
        }
    }

    /**
     * Whether the key's newest visible version, at {@code sequence}, lies under a range tombstone a
     * reader at {@code snapshot} sees. Without range tombstones: one field read of the view, no
     * allocation.
     */
    private static boolean rangeDeleted(ReadView v, byte[] key, long sequence, long snapshot) {
        RangeTombstones rd = v.rangeDeletions();
        return !rd.isEmpty() && rd.covers(key, sequence, snapshot);
    }

    /**
     * Looks in one table, counting the probe and its outcome for the level's hit ratio, and the
     * table's filter answers, in the calling thread's tally.
     */
    private static TableLookup lookup(int level, TableHandle table, byte[] key, long hash, long snapshot,
                                      ThreadTally tally) throws IOException {
        tally.add(StoreCounters.levelSlot(level, LevelCounters.PROBES));
        TableLookup r = table.reader().get(key, hash, snapshot, tally, level);
        if (r != null) {
            tally.add(StoreCounters.levelSlot(level, LevelCounters.HITS));
        }
        return r;
    }

    /**
     * The sequence a read at {@code readOptions} sees: the snapshot's, or else the last published
     * sequence — but only if {@code v} was still the current view when it was read, else -1 (the
     * caller retries). So a compaction that dropped versions older than that sequence can only
     * have happened after {@code v}, whose tables still hold them.
     */
    private long sequenceFor(ReadOptions readOptions, ReadView v) {
        if (readOptions.snapshot() != null) {
            return readOptions.snapshot().sequence();
        }
        long seq = db.root.lastSequence;
        return db.view == v ? seq : -1;
    }

    /**
     * An iterator over [{@code from}, {@code to}): the memtables, each level-0 table whose range
     * overlaps it, and one {@link LevelIterator} per deeper level over that level's overlapping
     * tables, so a seek reads a block of at most one table per deeper level. Tables whose prefix
     * or range filter rules the scan out are left out before any block is read. The iterator holds the read view's tables until it is closed.
     */
    StoreIterator iterator(byte[] from, byte[] to, ReadOptions readOptions, boolean reverse) {
        ReadView v = db.retainView();
        List<InternalIterator> sources = new ArrayList<>();
        boolean handedOver = false;
        try {
            long snapshot = sequenceFor(readOptions, v);
            if (snapshot < 0) {
                return iterator(from, to, readOptions, reverse);
            }
            RangeTombstones rd = v.rangeDeletions();
            sources.add(RangeDeletionSkipper.wrap(v.mem().iterator(), rd, snapshot, Long.MAX_VALUE, from, to));
            for (MemTable m : v.immutables()) {
                sources.add(RangeDeletionSkipper.wrap(m.iterator(), rd, snapshot, Long.MAX_VALUE, from, to));
            }
            TableGuard guard = tableGuard(from, to);
            Version version = v.version();
            VersionRef tables = v.tables();
            List<FileMetaData> level0 = version.files(0);
            for (int i = 0; i < level0.size(); i++) {
                if (level0.get(i).overlaps(from, to) && guard.mayHold(tables.handle(0, i))) {
                    sources.add(RangeDeletionSkipper.wrap(tables.handle(0, i).reader().iterator(), rd, snapshot,
                            level0.get(i).largestSeq(), from, to));
                }
            }
            for (int level = 1; level < Version.NUM_LEVELS; level++) {
                List<FileMetaData> files = overlapping(version, level, from, to, tables, guard);
                if (files.size() == 1) {
                    sources.add(RangeDeletionSkipper.wrap(tables.handle(files.get(0).fileNumber()).reader().iterator(),
                            rd, snapshot, files.get(0).largestSeq(), from, to));
                } else if (!files.isEmpty()) {
                    long newest = 0;
                    for (FileMetaData f : files) {
                        newest = Math.max(newest, f.largestSeq());
                    }
                    sources.add(RangeDeletionSkipper.wrap(new LevelIterator(files, new TableOpener(tables)), rd, snapshot,
                            newest, from, to));
                }
            }
            DbIterator it = new DbIterator(sources, tables, from, to, snapshot, reverse, db.rules);
            handedOver = true;
            return it;
        } catch (IOException | RuntimeException e) {
            for (InternalIterator source : sources) {
                try {
                    source.close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        } finally {
            if (!handedOver) {
                v.tables().release();
            }
        }
    }

    /**
     * The tables of a level ≥ 1 (sorted, disjoint) that overlap [{@code from}, {@code to}) and that
     * the guard does not rule out: a binary search finds the first, then the walk stops at the
     * first table starting at or past {@code to}.
     */
    private static List<FileMetaData> overlapping(Version version, int level, byte[] from, byte[] to,
                                                  VersionRef tables, TableGuard guard) throws IOException {
        List<FileMetaData> files = version.files(level);
        int lo = from == null ? 0 : version.firstEndingAtOrAfter(level, from);
        List<FileMetaData> out = new ArrayList<>();
        for (int i = lo; i < files.size(); i++) {
            FileMetaData f = files.get(i);
            if (to != null && Arrays.compareUnsigned(f.smallestKey(), to) >= 0) {
                break;
            }
            if (guard.mayHold(tables.handle(level, i))) {
                out.add(f);
            }
        }
        return out;
    }

    /** The filters a scan of [{@code from}, {@code to}) may consult, counting the scan as prefix or range scan. */
    private TableGuard tableGuard(byte[] from, byte[] to) {
        PrefixExtractor extractor = db.options.prefixExtractor();
        byte[] prefix = extractor == null ? null : extractor.sharedPrefix(from, to);
        if (prefix != null) {
            db.counters.prefixScans().increment();
        }
        RangeFilterOptions range = db.options.rangeFilter();
        boolean ranged = range != null && from != null && to != null;
        // Keys in [from, to) have first-8-byte numbers in [value(from), value(to)]: inclusive,
        // since a key below `to` may share its first 8 bytes.
        long lo = ranged ? RangeFilter.keyValue(from) : 0;
        long hi = ranged ? RangeFilter.keyValue(to) : 0;
        ranged = ranged && Long.compareUnsigned(lo, hi) <= 0 && Long.compareUnsigned(hi - lo, range.maxRange()) < 0;
        if (ranged) {
            db.counters.rangeScans().increment();
        }
        return new TableGuard(extractor, prefix, prefix == null ? 0 : Filters.hash(prefix), ranged, lo, hi);
    }

    /** A scan's filter checks: the one prefix of its range, and its range when short enough. */
    private record TableGuard(PrefixExtractor extractor, byte[] prefix, long prefixHash, boolean ranged, long lo,
                              long hi) {
        /**
         * False when the table's prefix or range filter rules the scan's range out: the table holds
         * nothing the scan could return and is not read at all.
         */
        boolean mayHold(TableHandle h) throws IOException {
            return (prefix == null || h.reader().mayContainPrefix(prefix, prefixHash, extractor))
                    && (!ranged || h.reader().mayContainRange(lo, hi));
        }
    }

    /**
     * A snapshot at the last published sequence, registered under the mutex so that a compaction,
     * which reads the registered sequences under the same mutex, keeps every version it needs.
     */
    Snapshot snapshot() {
        db.mutex().lock();
        try {
            return new SnapshotImpl(db.root.lastSequence, db.snapshots);
        } finally {
            db.mutex().unlock();
        }
    }

    StoreStats stats() {
        ReadView v = db.retainView();
        try {
            LevelShape shape = db.levelShape(v.version());
            List<StoreStats.LevelStats> levels = new ArrayList<>();
            List<StoreStats.TableFilterStats> tables = new ArrayList<>();
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                levels.add(levelStats(v, shape, level, tables));
            }
            var c = db.counters;
            return new StoreStats(c.gets().sum(), c.filterNegatives().sum(), c.filterPositives().sum(),
                    c.filterTruePositives().sum(), c.measuredFpr(), db.options.configuredFpr(), c.dataBlockReads().sum(),
                    c.bytesRead().sum(), c.blockCacheHits().sum(), c.blockCacheMisses().sum(), c.flushes().sum(),
                    List.copyOf(levels), db.tables.filterBytes(), c.compactions().sum(), c.compactionBytesRead().sum(),
                    c.compactionBytesWritten().sum(), c.flushBytesWritten().sum(), c.userBytesWritten().sum(),
                    c.writeSlowdowns().sum(), c.writeStops().sum(), db.options.filterPolicy().name(),
                    c.tableLookups().sum(), c.filterFileReads().sum(), c.filterFileBytesRead().sum(),
                    db.tables.indexHeapBytes(), db.tables.indexOffHeapBytes(), c.trivialMoves().sum(), health(), c.prefixScans().sum(), c.prefixChecked().sum(),
                    c.prefixUseful().sum(), c.rangeScans().sum(), c.rangeChecked().sum(), c.rangeUseful().sum(),
                    List.copyOf(tables), db.cumulative.snapshot(), db.tables.blockCacheBytes(), v.rangeDeletions().size(),
                    c.rangeDeletedTables().sum());
        } finally {
            v.tables().release();
        }
    }

    private StoreStats.Health health() {
        Throwable bg = db.root.backgroundError;
        String error = null;
        if (bg != null) {
            error = bg.toString();
            if (bg.getCause() != null && bg.getCause() != bg) {
                error += "; cause: " + bg.getCause();
            }
        }
        return new StoreStats.Health(error, db.root.walRecoveryDropped);
    }

    private StoreStats.LevelStats levelStats(ReadView v, LevelShape shape, int level,
                                             List<StoreStats.TableFilterStats> tables) {
        long bytes = 0;
        long filterBytes = 0;
        long prefixFilterBytes = 0;
        long rangeFilterBytes = 0;
        double weightedFpr = 0;
        long unfilteredEntries = 0;
        List<FileMetaData> files = v.version().files(level);
        for (FileMetaData f : files) {
            bytes += f.fileSize();
            filterBytes += f.filterFileSize();
            // The filters' figures from their headers, without opening the table (a store opens its
            // tables on first use): a table without a filter has no header.
            FilterSummary s = db.tables.filterSummary(v.tables().handle(f.fileNumber()), f);
            boolean hasFilter = s.header() != null;
            weightedFpr += (hasFilter ? s.expectedFpr() : 1.0) * f.entries();
            unfilteredEntries += hasFilter ? 0 : f.entries();
            prefixFilterBytes += s.prefixBytes();
            rangeFilterBytes += s.rangeBytes();
            tables.add(new StoreStats.TableFilterStats(level, f.fileNumber(), s.keyBytes(), s.prefixBytes(),
                    s.rangeBytes(), s.prefixExtractor() == null ? null : s.prefixExtractor().toString(),
                    f.filterFileSize()));
        }
        long entries = shape.entries(level);
        FilterChoice choice = db.options.filterPolicy().choose(level, shape);
        // Only tables really without a filter save it: a table moved down whole keeps the one it was written with.
        long saved = choice.skipped() ? (long) Math.ceil(unfilteredEntries * choice.bitsPerKey() / 8) : 0;
        LevelCounters lc = db.counters.level(level);
        return new StoreStats.LevelStats(level, files.size(), bytes, filterBytes, entries, choice,
                entries == 0 ? 0 : weightedFpr / entries, lc.filterNegatives().sum(), lc.filterPositives().sum(),
                lc.filterTruePositives().sum(), lc.measuredFpr(), lc.probes().sum(), lc.hitRatio(), saved,
                lc.prefixChecked().sum(), lc.prefixUseful().sum(), prefixFilterBytes, lc.rangeChecked().sum(),
                lc.rangeUseful().sum(), rangeFilterBytes);
    }

    /**
     * Opens a table of a level's iterator when the scan reaches it. A class, not a lambda: a one-shot
     * {@code scan} would pay the process's first lambda (some 10 ms) for it.
     */
    private static final class TableOpener implements Function<FileMetaData, InternalIterator> {
        private final VersionRef tables;

        TableOpener(VersionRef tables) {
            this.tables = tables;
        }

        @Override
        public InternalIterator apply(FileMetaData f) {
            return tables.handle(f.fileNumber()).readerUnchecked().iterator();
        }
    }
}
