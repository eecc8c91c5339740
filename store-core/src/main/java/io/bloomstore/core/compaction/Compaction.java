package io.bloomstore.core.compaction;

import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One compaction: tables of a level and the tables of the next level whose key ranges overlap
 * theirs, merged into new tables at the next level — or, to drop garbage from the bottom level
 * that nothing above will push down, all tables of a level rewritten in place — or, while level
 * 0 → 1 runs, a run of the newest level-0 tables merged into one level-0 table (intra-level-0,
 * as RocksDB's), so that lookups consult fewer tables meanwhile. Whether the output
 * level is the bottom for the compaction's key range (no deeper table overlaps it) decides whether
 * tombstones may go. When nothing below overlaps, the inputs can instead move down whole
 * ({@link #isTrivialMove}).
 *
 * <p>Thread safety: immutable.
 */
public final class Compaction {
    private final int level;
    private final int outputLevel;
    private final List<FileMetaData> inputs;
    private final List<FileMetaData> nextInputs;
    private final byte[] smallest;
    private final byte[] largest;
    private final boolean bottommost;
    /** Bytes of the tables two levels below the inputs that overlap their range. */
    private final long grandparentBytes;

    Compaction(Version version, int level, int outputLevel, List<FileMetaData> inputs,
               List<FileMetaData> nextInputs) {
        boolean down = outputLevel == level + 1 && outputLevel < Version.NUM_LEVELS;
        boolean inPlace = outputLevel == level && nextInputs.isEmpty();
        if (level < 0 || !(down || inPlace) || inputs.isEmpty()) {
            throw new IllegalArgumentException("a compaction needs input tables and writes the next level, or "
                    + "rewrites its level in place");
        }
        this.level = level;
        this.outputLevel = outputLevel;
        this.inputs = List.copyOf(inputs);
        this.nextInputs = List.copyOf(nextInputs);
        byte[] lo = null;
        byte[] hi = null;
        for (FileMetaData f : allInputs()) {
            lo = lo == null || Arrays.compareUnsigned(f.smallestKey(), lo) < 0 ? f.smallestKey() : lo;
            hi = hi == null || Arrays.compareUnsigned(f.largestKey(), hi) > 0 ? f.largestKey() : hi;
        }
        this.smallest = lo;
        this.largest = hi;
        // Inside level 0, older level-0 tables (those level 0 → 1 is merging) may hold what a
        // tombstone deletes: never the bottom.
        boolean bottom = outputLevel > 0;
        for (int deeper = outputLevel + 1; deeper < Version.NUM_LEVELS && bottom; deeper++) {
            bottom = overlapping(version, deeper, lo, hi).isEmpty();
        }
        this.bottommost = bottom;
        long gp = 0;
        if (outputLevel + 1 < Version.NUM_LEVELS) {
            for (FileMetaData f : overlapping(version, outputLevel + 1, lo, hi)) {
                gp += f.fileSize();
            }
        }
        this.grandparentBytes = gp;
    }

    /**
     * Whether the inputs can move down whole instead of being merged, as LevelDB's trivial move:
     * the compaction goes one level down, no table of the output level overlaps the inputs, the
     * inputs do not overlap one another (several level-0 tables can move together only then), and
     * the moved range overlaps at most {@code maxGrandparentBytes} two levels down (so a move does
     * not set up one very expensive merge later). The filter-policy check is the store's.
     */
    public boolean isTrivialMove(long maxGrandparentBytes) {
        if (outputLevel != level + 1 || !nextInputs.isEmpty() || grandparentBytes > maxGrandparentBytes) {
            return false;
        }
        List<FileMetaData> sorted = new ArrayList<>(inputs);
        sorted.sort((a, b) -> Arrays.compareUnsigned(a.smallestKey(), b.smallestKey()));
        for (int i = 1; i < sorted.size(); i++) {
            if (Arrays.compareUnsigned(sorted.get(i - 1).largestKey(), sorted.get(i).smallestKey()) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** The edit of a trivial move: the inputs leave their level and join the output level unchanged. */
    public VersionEdit moveEdit() {
        VersionEdit e = new VersionEdit();
        inputs.forEach(f -> e.deleteFile(level, f.fileNumber()));
        inputs.forEach(f -> e.addFile(outputLevel, f));
        return e;
    }

    /** Whether this merges level-0 tables into a level-0 table. */
    public boolean isIntraLevel0() {
        return level == 0 && outputLevel == 0;
    }

    /** Whether the key ranges of the two compactions' inputs intersect. */
    public boolean overlaps(Compaction other) {
        return Arrays.compareUnsigned(largest, other.smallest) >= 0
                && Arrays.compareUnsigned(smallest, other.largest) <= 0;
    }

    /** The tables of {@code level} whose ranges intersect [{@code lo}, {@code hi}] (both inclusive). */
    static List<FileMetaData> overlapping(Version version, int level, byte[] lo, byte[] hi) {
        List<FileMetaData> out = new ArrayList<>();
        for (FileMetaData f : version.files(level)) {
            if (Arrays.compareUnsigned(f.largestKey(), lo) >= 0 && Arrays.compareUnsigned(f.smallestKey(), hi) <= 0) {
                out.add(f);
            }
        }
        return out;
    }

    public int level() {
        return level;
    }

    public int outputLevel() {
        return outputLevel;
    }

    /** The input tables of {@link #level()}. */
    public List<FileMetaData> inputs() {
        return inputs;
    }

    /** The input tables of {@link #outputLevel()}. */
    public List<FileMetaData> nextInputs() {
        return nextInputs;
    }

    /** Every input table, upper level first. */
    public List<FileMetaData> allInputs() {
        List<FileMetaData> all = new ArrayList<>(inputs);
        all.addAll(nextInputs);
        return all;
    }

    /** Whether no table below the output level overlaps the inputs' key range. */
    public boolean bottommost() {
        return bottommost;
    }

    /** Entries in the tables of the input level (not those of the output level it overlaps). */
    public long levelInputEntries() {
        long sum = 0;
        for (FileMetaData f : inputs) {
            sum += f.entries();
        }
        return sum;
    }

    /** Bytes of the input tables (the {@code .sst} files). */
    public long inputBytes() {
        long sum = 0;
        for (FileMetaData f : allInputs()) {
            sum += f.fileSize();
        }
        return sum;
    }

    /** Entries in the input tables. */
    public long inputEntries() {
        long sum = 0;
        for (FileMetaData f : allInputs()) {
            sum += f.entries();
        }
        return sum;
    }

    public byte[] smallestKey() {
        return smallest.clone();
    }

    public byte[] largestKey() {
        return largest.clone();
    }

    /** The edit that replaces the inputs with {@code outputs} at the output level. */
    public VersionEdit edit(List<FileMetaData> outputs) {
        VersionEdit e = new VersionEdit();
        inputs.forEach(f -> e.deleteFile(level, f.fileNumber()));
        nextInputs.forEach(f -> e.deleteFile(outputLevel, f.fileNumber()));
        outputs.forEach(f -> e.addFile(outputLevel, f));
        return e;
    }

    @Override
    public String toString() {
        return "Compaction[L" + level + " " + inputs + " + L" + outputLevel + " " + nextInputs
                + (bottommost ? ", bottommost" : "") + "]";
    }
}
