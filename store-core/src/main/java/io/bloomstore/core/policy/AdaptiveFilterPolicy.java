package io.bloomstore.core.policy;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.FilterPolicy;
import io.bloomstore.core.LevelShape;

/**
 * Another policy's choice, except at levels where the measured a-priori hit ratio says the filter
 * cannot pay: the Bloom paradox, asked of one LSM level.
 *
 * <p>Rottenstreich and Keslassy's paradox ({@link io.bloomstore.bloom.paradox.BloomParadox})
 * weighs a filter against the a-priori probability P that a queried key is in the set: where a
 * false negative may be tolerated, a filter is worse than useless for P below
 * 1 / (1 + α · 2^(ln 2 · m/n)). A store may never answer falsely (α = ∞, so that threshold is 0);
 * what a level's filter buys it is one skipped data-block read for each lookup of a key the level
 * lacks that the filter recognises. With P the fraction of lookups reaching the level that find
 * their key there and f the filter's rate:
 * <pre>
 *   reads per lookup without filter  = 1
 *   reads per lookup with filter     = P + (1 − P) · f
 *   saved                            = (1 − P) · (1 − f)
 *   skip the filter                  ⇔  (1 − P) · (1 − f) &lt; s   ⇔   P &gt; 1 − s / (1 − f)
 * </pre>
 * s ({@code minSavedReads}) prices the filter's memory and probe in data-block reads. So the
 * paradox reappears at the other end: when nearly every lookup reaching a level is a hit (the
 * bottom level under a hits-heavy workload), the filter saves almost nothing. The level keeps its
 * filter until {@code minProbes} lookups were measured there.
 *
 * <p>Thread safety: immutable.
 */
public final class AdaptiveFilterPolicy implements FilterPolicy {
    private final FilterPolicy inner;
    private final double minSavedReads;
    private final long minProbes;

    public AdaptiveFilterPolicy(FilterPolicy inner, double minSavedReads, long minProbes) {
        if (inner == null) {
            throw new IllegalArgumentException("inner policy must not be null");
        }
        if (!(minSavedReads > 0 && minSavedReads < 1)) {
            throw new IllegalArgumentException("minimum saved reads per lookup must be in (0, 1): " + minSavedReads);
        }
        if (minProbes < 1) {
            throw new IllegalArgumentException("minimum probes must be positive: " + minProbes);
        }
        this.inner = inner;
        this.minSavedReads = minSavedReads;
        this.minProbes = minProbes;
    }

    /** The hit ratio above which a filter of rate {@code fpr} saves fewer than {@code minSavedReads}. */
    public static double hitRatioThreshold(double minSavedReads, double fpr) {
        return 1 - minSavedReads / (1 - fpr);
    }

    @Override
    public FilterChoice choose(int level, LevelShape shape) {
        FilterChoice c = inner.choose(level, shape);
        if (!c.builds()) {
            return c;
        }
        if (shape.probes(level) < minProbes) {
            return new FilterChoice(c.kind(), c.bitsPerKey(), false, c.reason() + "; adaptive: measuring ("
                    + shape.probes(level) + " of " + minProbes + " lookups)");
        }
        double p = shape.hitRatio(level);
        double threshold = hitRatioThreshold(minSavedReads, c.theoreticalFpr());
        String measured = String.format("hit ratio %.3f %s threshold %.3f", p, p > threshold ? ">" : "≤", threshold);
        return p > threshold ? c.skip("adaptive: " + measured)
                : new FilterChoice(c.kind(), c.bitsPerKey(), false, c.reason() + "; adaptive: " + measured);
    }

    @Override
    public String name() {
        return inner.name() + "+adaptive";
    }

    @Override
    public String toString() {
        return inner + "+adaptive[minSavedReads=" + minSavedReads + ", minProbes=" + minProbes + "]";
    }
}
