package io.bloomstore.core.manifest;

import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The set of live SSTables at one moment, per level, with the store-wide range tombstones the
 * MANIFEST holds ({@link #rangeTombstones()}): level 0 holds flushed memtables (and merges
 * of them) whose key ranges may overlap, newest entries first; levels 1 and up (filled by compaction) hold tables with
 * disjoint ranges sorted by smallest key, so a point lookup consults at most one per level.
 * A new version is made by {@link #apply(VersionEdit)}; versions are never changed, so a reader
 * that took one keeps a consistent view.
 *
 * <p>Thread safety: immutable.
 */
public final class Version {
    public static final int NUM_LEVELS = 7;

    /**
     * Level 0 by the newest entry each table holds, newest first: a merge inside level 0 writes
     * its output under a new file number while tables flushed meanwhile hold newer entries, so
     * file numbers alone would put it above them. Level-0 tables never interleave in sequence
     * numbers (flushes take the memtables in order, and a merge inside level 0 takes a run of
     * the newest tables), so this order is also their order by age. The file number breaks ties
     * (empty tables).
     */
    private static final Comparator<FileMetaData> NEWEST_FIRST = new NewestFirst();
    private static final Comparator<FileMetaData> BY_SMALLEST_KEY = new BySmallestKey();

    // The two orders are classes of their own, not lambdas and comparator combinators: every open
    // builds a version, and linking those cost a one-shot command some 3 ms.

    /** Larger newest sequence first, then larger file number. */
    private static final class NewestFirst implements Comparator<FileMetaData> {
        @Override
        public int compare(FileMetaData a, FileMetaData b) {
            int c = Long.compare(b.largestSeq(), a.largestSeq());
            return c != 0 ? c : Long.compare(b.fileNumber(), a.fileNumber());
        }
    }

    /** By smallest key, unsigned bytes. */
    private static final class BySmallestKey implements Comparator<FileMetaData> {
        @Override
        public int compare(FileMetaData a, FileMetaData b) {
            return Arrays.compareUnsigned(a.smallestKey(), b.smallestKey());
        }
    }

    private final List<List<FileMetaData>> levels;
    /** The store-wide range tombstones the MANIFEST holds (flushed ones; memtables hold the newer). */
    private final RangeTombstones rangeTombstones;
    /**
     * Per level ≥ 1, the first 8 bytes of each table's largest key as an unsigned big-endian
     * number ({@link #head}): a point lookup's binary search compares these, in one small array,
     * and reads a table's key only on a tie — at tens of millions of keys, chasing each probed
     * table's metadata and key arrays cost as much as the filters.
     */
    private final long[][] largestHeads;
    /** Heads of each level's smallest keys (level 0's: {@link #level0SmallestHeads}). */
    private final long[][] smallestHeads;
    /**
     * The heads of level 0's smallest and largest keys, in {@link #files(int)} order: a lookup
     * checks every level-0 table's range, and with many tables comparing full keys (two per table)
     * took a sixth of a missing lookup's time; the heads decide all but ties.
     */
    private final long[] level0SmallestHeads;
    private final long[] level0LargestHeads;

    private Version(List<List<FileMetaData>> levels, RangeTombstones rangeTombstones) {
        this.levels = levels;
        this.rangeTombstones = rangeTombstones;
        List<FileMetaData> level0 = levels.get(0);
        this.level0SmallestHeads = new long[level0.size()];
        this.level0LargestHeads = new long[level0.size()];
        for (int i = 0; i < level0.size(); i++) {
            level0SmallestHeads[i] = head(level0.get(i).smallestKey());
            level0LargestHeads[i] = head(level0.get(i).largestKey());
        }
        this.largestHeads = new long[NUM_LEVELS][];
        this.smallestHeads = new long[NUM_LEVELS][];
        for (int level = 0; level < NUM_LEVELS; level++) {
            List<FileMetaData> files = levels.get(level);
            long[] heads = new long[level == 0 ? 0 : files.size()];
            long[] smallest = new long[heads.length];
            for (int i = 0; i < heads.length; i++) {
                heads[i] = head(files.get(i).largestKey());
                smallest[i] = head(files.get(i).smallestKey());
            }
            largestHeads[level] = heads;
            smallestHeads[level] = smallest;
        }
    }

    /**
     * The first 8 bytes of {@code key}, zero-padded, as an unsigned big-endian number: when the
     * heads of two keys differ (unsigned), the keys compare the same way.
     */
    public static long head(byte[] key) {
        if (key.length >= Long.BYTES) {
            // A heap buffer's read, not a byte-array view VarHandle: the view's class initialisation
            // links the JVM's first lambda, some 10 ms of a one-shot command's open.
            return ByteBuffer.wrap(key).getLong(0);
        }
        long v = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            v = v << 8 | (i < key.length ? key[i] & 0xFF : 0);
        }
        return v;
    }

    public static Version empty() {
        List<List<FileMetaData>> levels = new ArrayList<>();
        for (int i = 0; i < NUM_LEVELS; i++) {
            levels.add(List.of());
        }
        return new Version(List.copyOf(levels), RangeTombstones.EMPTY);
    }

    /** The range tombstones of this version: those flushed to the MANIFEST and not yet collected. */
    public RangeTombstones rangeTombstones() {
        return rangeTombstones;
    }

    /**
     * Whether level-0 table {@code i} ({@link #files(int)} order) has {@code userKey} in its range,
     * as {@link FileMetaData#covers} says; {@code keyHead} is {@link #head}({@code userKey}).
     */
    public boolean level0Covers(int i, byte[] userKey, long keyHead) {
        long lo = level0SmallestHeads[i];
        long hi = level0LargestHeads[i];
        if (Long.compareUnsigned(keyHead, lo) < 0 || Long.compareUnsigned(keyHead, hi) > 0) {
            return false;
        }
        return keyHead != lo && keyHead != hi || levels.get(0).get(i).covers(userKey);
    }

    /** Whether {@code level} holds the table numbered {@code fileNumber}. */
    public boolean holds(int level, long fileNumber) {
        for (FileMetaData f : levels.get(level)) {
            if (f.fileNumber() == fileNumber) {
                return true;
            }
        }
        return false;
    }

    /** The tables of a level: level 0 newest first, other levels by smallest key. */
    public List<FileMetaData> files(int level) {
        return levels.get(level);
    }

    /** All live tables, all levels. */
    public List<FileMetaData> allFiles() {
        List<FileMetaData> all = new ArrayList<>();
        for (List<FileMetaData> level : levels) {
            all.addAll(level);
        }
        return all;
    }

    /**
     * The one table of a level ≥ 1 whose range covers {@code userKey}, or null. Level 1+ ranges
     * are disjoint and sorted, so a binary search on the largest keys finds it.
     */
    public FileMetaData candidate(int level, byte[] userKey) {
        int i = candidateIndex(level, userKey);
        return i < 0 ? null : levels.get(level).get(i);
    }

    /** As {@link #candidate}, the table's index in {@link #files(int) files(level)}, or -1. */
    public int candidateIndex(int level, byte[] userKey) {
        return candidateIndex(level, userKey, head(userKey));
    }

    /**
     * As {@link #candidateIndex(int, byte[])} with {@code keyHead} = {@link #head}({@code userKey})
     * computed once for every level; a level ≥ 1 that is empty costs one array length, and the
     * found table's smallest key is compared in full only when its head ties the key's.
     */
    public int candidateIndex(int level, byte[] userKey, long keyHead) {
        long[] heads = largestHeads[level];
        int n = heads.length;
        if (n == 0) {
            return level == 0 ? candidateIndexSlow(level, userKey) : -1;
        }
        int i = firstEndingAtOrAfter(level, userKey, keyHead);
        if (i >= n) {
            return -1;
        }
        long smallest = smallestHeads[level][i];
        if (keyHead != smallest) {
            return Long.compareUnsigned(keyHead, smallest) > 0 ? i : -1;
        }
        return Arrays.compareUnsigned(userKey, levels.get(level).get(i).smallestKey()) >= 0 ? i : -1;
    }

    /** Level 0 has no head arrays of sorted ranges: search its list as given. */
    private int candidateIndexSlow(int level, byte[] userKey) {
        List<FileMetaData> files = levels.get(level);
        if (files.isEmpty()) {
            return -1;
        }
        int i = firstEndingAtOrAfter(files, userKey);
        return i < files.size() && Arrays.compareUnsigned(userKey, files.get(i).smallestKey()) >= 0 ? i : -1;
    }

    /**
     * {@link #firstEndingAtOrAfter(List, byte[])} over a whole level ≥ 1, searching the key heads
     * first. The head search is branch-free (each step picks the next half with a conditional move,
     * not a jump the processor must guess: a missing lookup spent about a seventh of its time in
     * mispredicted jumps of this search); full keys are compared only among tables whose largest
     * keys share the target's head.
     */
    public int firstEndingAtOrAfter(int level, byte[] userKey) {
        if (level == 0) {
            return firstEndingAtOrAfter(levels.get(0), userKey);
        }
        return firstEndingAtOrAfter(level, userKey, head(userKey));
    }

    private int firstEndingAtOrAfter(int level, byte[] userKey, long keyHead) {
        List<FileMetaData> files = levels.get(level);
        long[] heads = largestHeads[level];
        int n = heads.length;
        if (n == 0) {
            return 0;
        }
        long target = keyHead ^ Long.MIN_VALUE; // unsigned order as signed order
        int base = 0;
        for (int len = n; len > 1; ) {
            int half = len >>> 1;
            base = (heads[base + half - 1] ^ Long.MIN_VALUE) < target ? base + half : base;
            len -= half;
        }
        // base: the first table whose head is >= the target's, or the last table
        long h = heads[base] ^ Long.MIN_VALUE;
        if (h < target) {
            return base + 1;
        }
        if (h > target) {
            return base;
        }
        // Heads tie: the answer is among the tables whose heads equal the target's.
        int lo = base;
        int hi = base + 1;
        while (hi < n && heads[hi] == heads[base]) {
            hi++;
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(files.get(mid).largestKey(), userKey) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * In tables sorted by key with disjoint ranges (a level ≥ 1), the index of the first whose
     * largest key is ≥ {@code userKey}: the one table that may hold it or the first past it; the
     * list's size when every table ends before it.
     */
    public static int firstEndingAtOrAfter(List<FileMetaData> files, byte[] userKey) {
        int lo = 0;
        int hi = files.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(files.get(mid).largestKey(), userKey) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Applies a series of edits and makes one version of the result ({@link #build}), where
     * {@link #apply} makes a version (each level copied and sorted, its key heads computed) per
     * edit: recovery reads every edit of a MANIFEST, and a store that ran for a while has dozens
     * to hundreds of them (a flush or compaction each), all in a fresh JVM's interpreter — 9 ms of
     * a one-shot {@code get}'s processor time on a 1M-key store with a 3.9 KB MANIFEST. The result
     * is {@link #apply}'s for the same edits in order.
     *
     * <p>Thread safety: not thread-safe; one recovery uses it.
     */
    public static final class Builder {
        /** Live tables by file number, with their level. */
        private final Map<Long, VersionEdit.Added> live = new LinkedHashMap<>();
        /** Live range tombstones by sequence number. */
        private final Map<Long, RangeTombstone> tombstones = new LinkedHashMap<>();

        /** Starts from the empty version. */
        public Builder() {
        }

        /**
         * Applies {@code edit}: its deletions, then its additions.
         *
         * @return null, or what is wrong with the edit, which no edit BloomStore writes does (a
         *         damaged MANIFEST, as RocksDB's version builder reports it): it deletes a table that
         *         is not live, or deletes it at another level than the table's, or adds a table that
         *         is live already (not deleted first)
         */
        public String apply(VersionEdit edit) {
            for (VersionEdit.Deleted d : edit.deleted()) {
                VersionEdit.Added was = live.get(d.fileNumber());
                if (was == null) {
                    return "deletes table " + d.fileNumber() + ", which is not live";
                }
                if (was.level() != d.level()) {
                    return "deletes table " + d.fileNumber() + " at level " + d.level() + ", but it lives at level "
                            + was.level();
                }
                live.remove(d.fileNumber());
            }
            for (VersionEdit.Added a : edit.added()) {
                if (live.putIfAbsent(a.file().fileNumber(), a) != null) {
                    return "adds table " + a.file().fileNumber() + ", which is live already";
                }
            }
            for (long sequence : edit.deletedRangeTombstones()) {
                if (tombstones.remove(sequence) == null) {
                    return "deletes range tombstone " + sequence + ", which is not live";
                }
            }
            for (RangeTombstone t : edit.addedRangeTombstones()) {
                if (tombstones.putIfAbsent(t.sequence(), t) != null) {
                    return "adds range tombstone " + t.sequence() + ", which is live already";
                }
            }
            return null;
        }

        /** Whether no table is live. */
        public boolean isEmpty() {
            return live.isEmpty();
        }

        /** The version the edits applied so far describe. */
        public Version build() {
            List<List<FileMetaData>> levels = new ArrayList<>(NUM_LEVELS);
            for (int level = 0; level < NUM_LEVELS; level++) {
                levels.add(new ArrayList<>());
            }
            for (VersionEdit.Added a : live.values()) {
                levels.get(a.level()).add(a.file());
            }
            return ofUnsorted(levels, RangeTombstones.of(tombstones.values()));
        }
    }

    /** The version of {@code levels}' tables, each level put in its order ({@link #files}) and copied. */
    private static Version ofUnsorted(List<List<FileMetaData>> levels, RangeTombstones rangeTombstones) {
        List<List<FileMetaData>> sorted = new ArrayList<>(NUM_LEVELS);
        for (int level = 0; level < NUM_LEVELS; level++) {
            List<FileMetaData> files = levels.get(level);
            files.sort(level == 0 ? NEWEST_FIRST : BY_SMALLEST_KEY);
            sorted.add(List.copyOf(files));
        }
        return new Version(List.copyOf(sorted), rangeTombstones);
    }

    /**
     * What is wrong with {@code edit} applied to this version, or null: as {@link Builder#apply}, a
     * deletion of a table that is not live here or not at that level, or an addition of a live one.
     */
    public String check(VersionEdit edit) {
        Builder b = new Builder();
        for (int level = 0; level < NUM_LEVELS; level++) {
            VersionEdit add = new VersionEdit();
            for (FileMetaData f : levels.get(level)) {
                add.addFile(level, f);
            }
            b.apply(add);
        }
        VersionEdit tombstones = new VersionEdit();
        for (RangeTombstone t : rangeTombstones.tombstones()) {
            tombstones.addRangeTombstone(t);
        }
        b.apply(tombstones);
        return b.apply(edit);
    }

    /** A new version with the edit's deletions and additions applied. */
    public Version apply(VersionEdit edit) {
        Set<Long> deleted = new HashSet<>();
        for (VersionEdit.Deleted d : edit.deleted()) {
            deleted.add(d.fileNumber());
        }
        List<List<FileMetaData>> next = new ArrayList<>();
        for (int level = 0; level < NUM_LEVELS; level++) {
            List<FileMetaData> files = new ArrayList<>();
            for (FileMetaData f : levels.get(level)) {
                if (!deleted.contains(f.fileNumber())) {
                    files.add(f);
                }
            }
            for (VersionEdit.Added a : edit.added()) {
                if (a.level() == level) {
                    files.add(a.file());
                }
            }
            next.add(files);
        }
        RangeTombstones tombstones = rangeTombstones;
        if (!edit.addedRangeTombstones().isEmpty() || !edit.deletedRangeTombstones().isEmpty()) {
            Set<Long> gone = new HashSet<>(edit.deletedRangeTombstones());
            List<RangeTombstone> kept = new ArrayList<>();
            for (RangeTombstone t : rangeTombstones.tombstones()) {
                if (!gone.contains(t.sequence())) {
                    kept.add(t);
                }
            }
            kept.addAll(edit.addedRangeTombstones());
            tombstones = RangeTombstones.of(kept);
        }
        return ofUnsorted(next, tombstones);
    }
}
