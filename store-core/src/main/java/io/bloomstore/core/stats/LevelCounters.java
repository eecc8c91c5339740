package io.bloomstore.core.stats;

/**
 * One level's share of the lookup counters, so filters can be judged per level:
 * <ul>
 *   <li>{@code filterNegatives}, {@code filterPositives}, {@code filterTruePositives}: as in
 *       {@link StoreCounters}, counted by the level's tables at lookup time;
 *   <li>{@code probes}: table lookups that reached this level with the key inside a table's range
 *       (whether or not the table has a filter);
 *   <li>{@code prefixChecked}, {@code prefixUseful}: as in {@link StoreCounters}, counted by the
 *       level's tables when a scan confined to one prefix asks their prefix filters;
 *   <li>{@code rangeChecked}, {@code rangeUseful}: likewise for range filters and short-range scans;
 *   <li>{@code hits}: those probes that found an entry for the key at this level. hits / probes
 *       is the level's measured a-priori hit ratio, what the adaptive filter policy decides on.
 * </ul>
 *
 * <p>Thread safety: all counters may be incremented from any thread.
 */
public final class LevelCounters {
    /** This level's {@link ThreadTally} slots, relative to {@link StoreCounters#levelSlot}(level, 0). */
    public static final int PROBES = 0;
    public static final int HITS = 1;
    public static final int FILTER_NEGATIVES = 2;
    public static final int FILTER_POSITIVES = 3;
    public static final int FILTER_TRUE_POSITIVES = 4;
    static final int TALLIED = 5;

    private final Counter filterNegatives;
    private final Counter filterPositives;
    private final Counter filterTruePositives;
    private final Counter probes;
    private final Counter hits;
    private final Counter prefixChecked = new Counter();
    private final Counter prefixUseful = new Counter();
    private final Counter rangeChecked = new Counter();
    private final Counter rangeUseful = new Counter();

    /** Counters with no per-thread share (a lone table's). */
    public LevelCounters() {
        probes = new Counter();
        hits = new Counter();
        filterNegatives = new Counter();
        filterPositives = new Counter();
        filterTruePositives = new Counter();
    }

    /**
     * Counters whose lookup counts also sum the per-thread rows of {@code tallies}, this level's
     * slots starting at {@code firstSlot}.
     */
    LevelCounters(TallyRegistry tallies, int firstSlot) {
        probes = new Counter(tallies, firstSlot + PROBES);
        hits = new Counter(tallies, firstSlot + HITS);
        filterNegatives = new Counter(tallies, firstSlot + FILTER_NEGATIVES);
        filterPositives = new Counter(tallies, firstSlot + FILTER_POSITIVES);
        filterTruePositives = new Counter(tallies, firstSlot + FILTER_TRUE_POSITIVES);
    }

    public Counter filterNegatives() {
        return filterNegatives;
    }

    public Counter filterPositives() {
        return filterPositives;
    }

    public Counter filterTruePositives() {
        return filterTruePositives;
    }

    public Counter probes() {
        return probes;
    }

    public Counter hits() {
        return hits;
    }

    public Counter prefixChecked() {
        return prefixChecked;
    }

    public Counter prefixUseful() {
        return prefixUseful;
    }

    public Counter rangeChecked() {
        return rangeChecked;
    }

    public Counter rangeUseful() {
        return rangeUseful;
    }

    /** Measured false-positive rate of this level's filters; 0 before any miss was filtered. */
    public double measuredFpr() {
        long fp = filterPositives.sum() - filterTruePositives.sum();
        long denominator = fp + filterNegatives.sum();
        return denominator == 0 ? 0.0 : (double) fp / denominator;
    }

    /** hits / probes, or NaN before any probe. */
    public double hitRatio() {
        long p = probes.sum();
        return p == 0 ? Double.NaN : (double) hits.sum() / p;
    }
}
