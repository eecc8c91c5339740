package io.bloomstore.core.compaction;

import io.bloomstore.core.manifest.FileMetaData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Splits one level 0 → 1 compaction by user key into ranges that separate threads merge at once
 * (RocksDB's subcompactions, GenSubcompactionBoundaries): the candidate boundaries are the input
 * tables' smallest and largest keys; each table's bytes are spread evenly over the candidate gaps
 * it spans, and the boundaries are the candidates where the running total crosses each
 * {@code total / ranges}. Ranges are half-open, {@code [b(i-1), b(i))}, the first open below and the
 * last open above, so every user key, with all its versions, falls in exactly one: the outputs of
 * two ranges never overlap, and the level stays sorted.
 *
 * <p>Thread safety: stateless.
 */
public final class Subcompactions {
    private Subcompactions() {
    }

    /** Unsigned byte order (a class, not a method reference: no lambda spun by a compaction). */
    private static final Comparator<byte[]> UNSIGNED = new Comparator<>() {
        @Override
        public int compare(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }
    };

    /**
     * The boundaries (ascending, distinct user keys; empty for one range) splitting {@code c} into
     * at most {@code maxRanges} ranges of about {@code minRangeBytes} input bytes or more. Only a
     * merge from level 0 into level 1 is split: a deeper compaction takes one table of its level,
     * and a merge inside level 0 writes one table.
     */
    public static List<byte[]> boundaries(Compaction c, int maxRanges, long minRangeBytes) {
        if (maxRanges < 2 || c.level() != 0 || c.outputLevel() != 1 || c.isIntraLevel0()) {
            return List.of();
        }
        long total = c.inputBytes();
        int ranges = (int) Math.min(maxRanges, total / Math.max(1, minRangeBytes));
        if (ranges < 2) {
            return List.of();
        }
        TreeSet<byte[]> set = new TreeSet<>(UNSIGNED);
        for (FileMetaData f : c.allInputs()) {
            set.add(f.smallestKey());
            set.add(f.largestKey());
        }
        byte[][] candidates = set.toArray(new byte[0][]);
        if (candidates.length < 3) {
            return List.of();
        }
        // weight[j]: bytes estimated between candidates[j] and candidates[j + 1].
        double[] weight = new double[candidates.length - 1];
        for (FileMetaData f : c.allInputs()) {
            int from = Arrays.binarySearch(candidates, f.smallestKey(), UNSIGNED);
            int to = Arrays.binarySearch(candidates, f.largestKey(), UNSIGNED);
            int gaps = Math.max(1, to - from);
            for (int j = from; j < from + gaps && j < weight.length; j++) {
                weight[j] += (double) f.fileSize() / gaps;
            }
        }
        double sum = 0;
        for (double w : weight) {
            sum += w;
        }
        List<byte[]> out = new ArrayList<>();
        double running = 0;
        int next = 1;
        // A boundary is a gap's upper candidate; the last candidate would leave the last range empty.
        for (int j = 0; j < weight.length - 1 && next < ranges; j++) {
            running += weight[j];
            if (running >= sum * next / ranges) {
                out.add(candidates[j + 1]);
                next++;
            }
        }
        return List.copyOf(out);
    }
}
