package io.bloomstore.core.compaction;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Decides what to compact, as LevelDB does: each level has a score — level 0 its table count over
 * {@code l0CompactionTrigger}, level i ≥ 1 its bytes over baseLevelBytes · ratio^(i − 1) — and
 * the level with the highest score ≥ 1 is compacted into the next. Level 0 compacts all its
 * tables at once (their ranges overlap, and an older level-0 table must never stay above a newer
 * one's output). A deeper level compacts one table at a time, taking the tables in key order
 * round the level (a compact pointer per level), so every key range gets its turn.
 *
 * <p>Several compactions may run at once ({@link #pick(Version, Set, Collection)}): a new one
 * takes no table a running one takes, and writes no key range of its output level that a running
 * one writes there, so the outputs of a level never overlap and a key's versions are never
 * merged by two compactions at once. Level 0 → 1 takes every level-0 table and runs alone (an
 * older level-0 table must never stay above a newer one's output); while it runs, or while the
 * level-1 tables it needs are busy, the newest level-0 tables are merged into one instead
 * (intra-level-0, RocksDB's rule for how many: {@link #intraLevel0}).
 *
 * <p>Thread safety: not thread-safe (the compact pointers); the store uses it under its mutex.
 */
public final class CompactionPicker {
    private final StoreOptions options;
    /** The fewest level-0 tables a merge inside level 0 takes (RocksDB's kMinFilesForIntraL0Compaction). */
    static final int INTRA_LEVEL0_MIN_TABLES = 4;
    private final byte[][] compactPointer = new byte[Version.NUM_LEVELS][];

    public CompactionPicker(StoreOptions options) {
        this.options = options;
    }

    /** How urgently {@code level} needs compaction; ≥ 1 means it should be compacted. */
    public double score(Version v, int level) {
        if (level == 0) {
            return (double) v.files(0).size() / options.l0CompactionTrigger();
        }
        long bytes = 0;
        for (FileMetaData f : v.files(level)) {
            bytes += f.fileSize();
        }
        return bytes / options.maxBytesForLevel(level);
    }

    /** Whether some level has a score ≥ 1. */
    public boolean needsCompaction(Version v) {
        for (int level = 0; level < Version.NUM_LEVELS - 1; level++) {
            if (score(v, level) >= 1) {
                return true;
            }
        }
        return false;
    }

    /** The compaction the highest-scoring level needs, or null when every score is below 1. */
    public Compaction pick(Version v) {
        return pick(v, Set.of(), List.of());
    }

    /**
     * The compaction the highest-scoring level needs that can run beside {@code running} (whose
     * input tables are {@code busy}), else the next level's, or null when no level with a score
     * ≥ 1 has one.
     */
    public Compaction pick(Version v, Set<Long> busy, Collection<Compaction> running) {
        // Levels with a score ≥ 1, highest score first (an insertion sort of at most six: no
        // comparator, whose lambda a store's first open would spin).
        int[] levels = new int[Version.NUM_LEVELS - 1];
        double[] scores = new double[Version.NUM_LEVELS - 1];
        int n = 0;
        for (int level = 0; level < Version.NUM_LEVELS - 1; level++) {
            double score = score(v, level);
            if (score >= 1) {
                int at = n++;
                while (at > 0 && scores[at - 1] < score) {
                    levels[at] = levels[at - 1];
                    scores[at] = scores[at - 1];
                    at--;
                }
                levels[at] = level;
                scores[at] = score;
            }
        }
        for (int i = 0; i < n; i++) {
            int level = levels[i];
            Compaction c = level == 0 ? pickLevel0(v, busy, running) : pickDeeper(v, level, busy, running);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    private static boolean noneBusy(List<FileMetaData> files, Set<Long> busy) {
        for (FileMetaData f : files) {
            if (busy.contains(f.fileNumber())) {
                return false;
            }
        }
        return true;
    }

    private Compaction pickLevel0(Version v, Set<Long> busy, Collection<Compaction> running) {
        List<FileMetaData> level0 = v.files(0);
        if (noneBusy(level0, busy)) {
            Compaction down = withOverlap(v, 0, level0);
            if (canRun(down, busy, running)) {
                return down;
            }
        }
        return intraLevel0(v, busy, running);
    }

    /**
     * A merge of the newest level-0 tables into one, beside a running level 0 → 1 (or while the
     * level-1 tables it needs are busy), when at least {@code max(4, l0CompactionTrigger)} of them
     * are free: RocksDB's FindIntraL0Compaction, which takes tables newest first while the bytes
     * merged per table removed keep falling (so a large earlier merge is not rewritten for one
     * small new table).
     */
    private Compaction intraLevel0(Version v, Set<Long> busy, Collection<Compaction> running) {
        for (Compaction r : running) {
            if (r.isIntraLevel0()) {
                return null;
            }
        }
        List<FileMetaData> level0 = v.files(0);
        int free = 0;
        while (free < level0.size() && !busy.contains(level0.get(free).fileNumber())) {
            free++;
        }
        int limit = 1;
        if (free > 0) {
            long bytes = level0.get(0).fileSize();
            double perRemoved = Double.MAX_VALUE;
            for (; limit < free; limit++) {
                bytes += level0.get(limit).fileSize();
                double next = (double) bytes / limit;
                if (next > perRemoved) {
                    break;
                }
                perRemoved = next;
            }
        }
        if (limit < Math.max(INTRA_LEVEL0_MIN_TABLES, options.l0CompactionTrigger())) {
            return null;
        }
        return new Compaction(v, 0, 0, new ArrayList<>(level0.subList(0, limit)), List.of());
    }

    /** One table of {@code level} ≥ 1, the first free one from the compact pointer on, with its overlap below. */
    private Compaction pickDeeper(Version v, int level, Set<Long> busy, Collection<Compaction> running) {
        List<FileMetaData> files = v.files(level);
        int start = 0;
        byte[] pointer = compactPointer[level];
        if (pointer != null) {
            while (start < files.size() && Arrays.compareUnsigned(files.get(start).smallestKey(), pointer) <= 0) {
                start++;
            }
            start = start == files.size() ? 0 : start;
        }
        for (int i = 0; i < files.size(); i++) {
            FileMetaData f = files.get((start + i) % files.size());
            if (busy.contains(f.fileNumber())) {
                continue;
            }
            Compaction c = withOverlap(v, level, List.of(f));
            if (canRun(c, busy, running)) {
                compactPointer[level] = f.largestKey();
                return c;
            }
        }
        return null;
    }

    /**
     * Whether {@code c} may run beside {@code running}: none of its tables is busy, and no running
     * compaction writes an overlapping key range into the same output level.
     */
    public static boolean canRun(Compaction c, Set<Long> busy, Collection<Compaction> running) {
        for (FileMetaData f : c.allInputs()) {
            if (busy.contains(f.fileNumber())) {
                return false;
            }
        }
        for (Compaction r : running) {
            if (r.outputLevel() == c.outputLevel() && r.overlaps(c)) {
                return false;
            }
        }
        return true;
    }

    /** Every table of {@code level} with the overlapping tables of the next level, or null when the level is empty. */
    public Compaction whole(Version v, int level) {
        List<FileMetaData> inputs = v.files(level);
        return inputs.isEmpty() ? null : withOverlap(v, level, inputs);
    }

    /** Every table of {@code level} ≥ 1 rewritten in place (garbage out), or null when the level is empty. */
    public Compaction inPlace(Version v, int level) {
        List<FileMetaData> inputs = v.files(level);
        return inputs.isEmpty() ? null : new Compaction(v, level, level, inputs, List.of());
    }

    /**
     * Table {@code f} of {@code level} ≥ 1 rewritten in place: what range deletion's cleanup asks
     * for when the table still holds data a range tombstone deletes for every reader, so the data
     * and then the tombstone go. Never a trivial move (its output level is its own).
     */
    public Compaction rewrite(Version v, int level, FileMetaData f) {
        if (level < 1) {
            throw new IllegalArgumentException("level 0 tables are merged into level 1 together, not one by one");
        }
        return new Compaction(v, level, level, List.of(f), List.of());
    }

    private static Compaction withOverlap(Version v, int level, List<FileMetaData> inputs) {
        byte[] lo = null;
        byte[] hi = null;
        for (FileMetaData f : inputs) {
            lo = lo == null || Arrays.compareUnsigned(f.smallestKey(), lo) < 0 ? f.smallestKey() : lo;
            hi = hi == null || Arrays.compareUnsigned(f.largestKey(), hi) > 0 ? f.largestKey() : hi;
        }
        return new Compaction(v, level, level + 1, new ArrayList<>(inputs),
                Compaction.overlapping(v, level + 1, lo, hi));
    }
}
