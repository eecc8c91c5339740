package io.bloomstore.core.db;

import io.bloomstore.core.compaction.CompactionCancelledException;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two MANIFEST-only jobs range deletion brings ({@code docs/architecture.md}, "Range
 * deletion"): tables a range tombstone deletes whole are dropped without being read, and range
 * tombstones nothing is left under are removed, so they do not pile up.
 *
 * <p>A table is deleted whole when the MANIFEST's tombstones cover its key range with fragments
 * that each hold a tombstone newer than its newest entry, and no live snapshot lies between its
 * oldest entry and that tombstone (such a snapshot still reads its entries). A tombstone [a, b)@T
 * goes once no table overlapping [a, b) holds an entry in [a, b) older than T: compactions drop
 * such entries as soon as no snapshot needs them ({@link io.bloomstore.core.compaction.ShadowedVersions}),
 * so a tombstone lives until the data under it has been compacted away. Only tombstones in the
 * MANIFEST are considered: a memtable's are newer than every table entry they could cover only once
 * their memtable is flushed. Deciding that a table holds nothing under a tombstone reads the table's
 * entries in [a, b) (at most {@link #MAX_SCANNED} of them; past that the table counts as holding
 * something), remembered per table and tombstone, since tables never change. A table found holding
 * data a tombstone deletes for every reader (no snapshot older than the tombstone) becomes a
 * compaction target ({@link #takeTarget}): compactions taken by level sizes alone never reach a
 * bottom-level table at the edge of a deleted range, and its tombstone would stay forever.
 *
 * <p>Thread safety: one run at a time, arranged by {@link DbBackground} (which also keeps
 * compactions off the tables being dropped); the edit is logged without the mutex and installed
 * under it, as a compaction's.
 */
final class RangeDeletionCleaner {
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(RangeDeletionCleaner.class);
    }

    /** Entries of one table read to decide it holds nothing under one tombstone. */
    static final int MAX_SCANNED = 4096;

    private final DbState db;
    /** Per table, tombstones (by sequence) it is known to hold nothing under. */
    private final Map<Long, Set<Long>> clean = new HashMap<>();
    /**
     * Tables (by number, with their level) found holding data a tombstone deletes for every reader
     * (no live snapshot older than the tombstone): compacting them drops that data, and then the
     * tombstone can go. {@link DbBackground} takes them when no level needs compaction; under the
     * mutex.
     */
    private final Map<Long, Integer> targets = new HashMap<>();

    /** Whether a table's part of a tombstone's range holds nothing older than it, something, or is too long to tell. */
    private enum Under { NOTHING, SOMETHING, UNKNOWN }

    RangeDeletionCleaner(DbState db) {
        this.db = db;
    }

    /** A table to drop whole, with its level. */
    record Drop(int level, FileMetaData file) {
    }

    /**
     * With the mutex held: the tables of {@code v} that its tombstones delete whole for every
     * reader, none of them in {@code busy}.
     */
    List<Drop> droppable(Version v, Set<Long> busy) {
        RangeTombstones rt = v.rangeTombstones();
        List<Drop> out = new ArrayList<>();
        if (rt.isEmpty()) {
            return out;
        }
        long[] snapshots = db.pinnedSequences();
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : v.files(level)) {
                if (busy.contains(f.fileNumber())) {
                    continue;
                }
                long t = rt.coversWhole(f.smallestKey(), f.largestKey(), f.largestSeq());
                if (t > 0 && !snapshotIn(snapshots, f.smallestSeq(), t)) {
                    out.add(new Drop(level, f));
                }
            }
        }
        return out;
    }

    private static boolean snapshotIn(long[] snapshots, long from, long until) {
        for (long s : snapshots) {
            if (s >= from && s < until) {
                return true;
            }
        }
        return false;
    }

    /**
     * Drops {@code drops} and every tombstone of the current version nothing is left under, in one
     * MANIFEST edit; returns whether it changed anything. The caller has marked {@code drops} busy.
     */
    boolean run(List<Drop> drops) throws IOException {
        ReadView view = db.retainView();
        List<Long> collectable;
        try {
            Set<Long> dropping = new HashSet<>();
            for (Drop d : drops) {
                dropping.add(d.file().fileNumber());
            }
            collectable = collectable(view, dropping);
        } finally {
            view.tables().release();
        }
        if (drops.isEmpty() && collectable.isEmpty()) {
            return false;
        }
        VersionEdit edit = new VersionEdit();
        long bytes = 0;
        for (Drop d : drops) {
            edit.deleteFile(d.level(), d.file().fileNumber());
            bytes += d.file().fileSize();
        }
        for (long sequence : collectable) {
            edit.deleteRangeTombstone(sequence);
        }
        db.versions.logAndApply(edit);
        ReentrantLock mutex = db.mutex();
        mutex.lock();
        try {
            ReadView v = db.view;
            db.installVersion(db.versions.current(), v.mem(), v.immutables());
            for (Drop d : drops) {
                db.tables.drop(d.file().fileNumber(), true);
                clean.remove(d.file().fileNumber());
            }
            db.counters.rangeDeletedTables().add(drops.size());
            db.queue.signalChange();
        } finally {
            mutex.unlock();
        }
        Log.LOG.info("Range deletion: dropped {} tables ({} bytes) covered whole, removed {} range tombstones with"
                + " nothing left under them", drops.size(), bytes, collectable.size());
        return true;
    }

    /** The tombstones of the view's version that no table but those {@code dropping} holds anything under. */
    private List<Long> collectable(ReadView view, Set<Long> dropping) throws IOException {
        Version v = view.version();
        long[] snapshots = db.pinnedSequences();
        List<Long> out = new ArrayList<>();
        Map<Long, Integer> found = new HashMap<>();
        for (RangeTombstone t : v.rangeTombstones().tombstones()) {
            if (nothingUnder(view, v, t, dropping, snapshotBelow(snapshots, t.sequence()) ? null : found)) {
                out.add(t.sequence());
            }
        }
        db.mutex().lock();
        try {
            targets.clear();
            targets.putAll(found);
        } finally {
            db.mutex().unlock();
        }
        return out;
    }

    private static boolean snapshotBelow(long[] snapshots, long sequence) {
        for (long s : snapshots) {
            if (s < sequence) {
                return true;
            }
        }
        return false;
    }

    /**
     * With the mutex held: a table to compact so that what range tombstones delete goes (see
     * {@link #targets}), as its number and level, and forgets it; null when there is none.
     */
    long[] takeTarget(Set<Long> busy) {
        for (Map.Entry<Long, Integer> e : targets.entrySet()) {
            if (!busy.contains(e.getKey())) {
                long[] t = {e.getKey(), e.getValue()};
                targets.remove(e.getKey());
                return t;
            }
        }
        return null;
    }

    /**
     * Whether no table but those {@code dropping} holds anything under {@code t}. The tables found
     * holding data it deletes go into {@code found} (by number, with their level) when it is not
     * null, that is when no snapshot still reads that data.
     */
    private boolean nothingUnder(ReadView view, Version v, RangeTombstone t, Set<Long> dropping,
                                 Map<Long, Integer> found) throws IOException {
        boolean nothing = true;
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : v.files(level)) {
                if (dropping.contains(f.fileNumber()) || f.smallestSeq() >= t.sequence()
                        || !t.overlaps(f.smallestKey(), f.largestKey())) {
                    continue;
                }
                Set<Long> known = clean.get(f.fileNumber());
                if (known != null && known.contains(t.sequence())) {
                    continue;
                }
                Under under = under(view, f, t);
                if (under != Under.NOTHING) {
                    nothing = false;
                    if (under == Under.SOMETHING && found != null) {
                        found.put(f.fileNumber(), level);
                    }
                    continue;
                }
                if (known == null) {
                    known = new HashSet<>();
                    clean.put(f.fileNumber(), known);
                }
                known.add(t.sequence());
            }
        }
        return nothing;
    }

    /** What table {@code f} holds in [start, end) older than the tombstone, reading at most {@link #MAX_SCANNED} entries. */
    private Under under(ReadView view, FileMetaData f, RangeTombstone t) throws IOException {
        try (InternalIterator it = view.tables().handle(f.fileNumber()).reader().iterator(false)) {
            int scanned = 0;
            for (it.seek(t.start()); it.valid() && Arrays.compareUnsigned(it.key(), t.end()) < 0; it.next()) {
                if (it.sequence() < t.sequence()) {
                    return Under.SOMETHING;
                }
                if (++scanned > MAX_SCANNED) {
                    return Under.UNKNOWN;
                }
                if (db.root.closed) {
                    throw new CompactionCancelledException("range tombstone collection stopped: the store is closing");
                }
            }
            return Under.NOTHING;
        }
    }
}
