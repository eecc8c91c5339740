package io.bloomstore.core;

import java.util.Arrays;

/**
 * What a {@link FilterPolicy} knows about the tree when it chooses a level's filter: the entries
 * in each level, each level's measured a-priori hit ratio (of the lookups that reached a table of
 * the level, the fraction that found the key there) and how many lookups that ratio rests on, and
 * the bottom level (the deepest level holding tables, at least 1).
 *
 * <p>Thread safety: immutable; the accessors return copies.
 */
public final class LevelShape {
    private final long[] entries;
    private final double[] hitRatios;
    private final long[] probes;
    private final int bottomLevel;

    /**
     * @param entries   internal entries per level, level 0 first
     * @param hitRatios measured hit ratio per level (NaN where nothing was measured)
     * @param probes    lookups each ratio was measured on
     */
    public LevelShape(long[] entries, double[] hitRatios, long[] probes) {
        if (entries.length != hitRatios.length || entries.length != probes.length || entries.length < 2) {
            throw new IllegalArgumentException("need one entry count, hit ratio and probe count per level (≥ 2 levels)");
        }
        this.entries = entries.clone();
        this.hitRatios = hitRatios.clone();
        this.probes = probes.clone();
        int bottom = 1;
        for (int i = 1; i < entries.length; i++) {
            if (entries[i] > 0) {
                bottom = i;
            }
        }
        this.bottomLevel = bottom;
    }

    /** A shape with the given entries and nothing measured yet. */
    public static LevelShape ofEntries(long... entries) {
        double[] ratios = new double[entries.length];
        Arrays.fill(ratios, Double.NaN);
        return new LevelShape(entries, ratios, new long[entries.length]);
    }

    public int levels() {
        return entries.length;
    }

    public long entries(int level) {
        return entries[level];
    }

    public long[] entries() {
        return entries.clone();
    }

    /** The measured a-priori hit ratio of the level, NaN when unmeasured. */
    public double hitRatio(int level) {
        return hitRatios[level];
    }

    public long probes(int level) {
        return probes[level];
    }

    /** The deepest level holding entries, at least 1: where a lookup for a present key usually ends. */
    public int bottomLevel() {
        return bottomLevel;
    }

    /** This shape with {@code extra} more entries at {@code level} (a table about to be written there). */
    public LevelShape plus(int level, long extra) {
        long[] e = entries.clone();
        e[level] += extra;
        return new LevelShape(e, hitRatios, probes);
    }

    @Override
    public String toString() {
        return "LevelShape[entries=" + Arrays.toString(entries) + ", hitRatios=" + Arrays.toString(hitRatios) + "]";
    }
}
