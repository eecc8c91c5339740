package io.bloomstore.core.compaction;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides what to compact, as LevelDB does: each level has a score — level 0 its table count over
 * {@code l0CompactionTrigger}, level i ≥ 1 its bytes over baseLevelBytes · ratio^(i − 1) — and
 * the level with the highest score ≥ 1 is compacted into the next. Level 0 compacts all its
 * tables at once (their ranges overlap, and an older level-0 table must never stay above a newer
 * one's output). A deeper level compacts one table at a time, taking the tables in key order
 * round the level (a compact pointer per level), so every key range gets its turn.
 *
 * <p>Thread safety: not thread-safe (the compact pointers); the store uses it under its
 * compaction lock, one compaction at a time.
 */
public final class CompactionPicker {
    private final StoreOptions options;
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
        int best = -1;
        double bestScore = 1;
        for (int level = 0; level < Version.NUM_LEVELS - 1; level++) {
            double s = score(v, level);
            if (s >= bestScore) {
                best = level;
                bestScore = s;
            }
        }
        if (best < 0) {
            return null;
        }
        if (best == 0) {
            return whole(v, 0);
        }
        List<FileMetaData> files = v.files(best);
        FileMetaData chosen = files.get(0);
        byte[] pointer = compactPointer[best];
        if (pointer != null) {
            for (FileMetaData f : files) {
                if (Arrays.compareUnsigned(f.smallestKey(), pointer) > 0) {
                    chosen = f;
                    break;
                }
            }
        }
        compactPointer[best] = chosen.largestKey();
        return withOverlap(v, best, List.of(chosen));
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
