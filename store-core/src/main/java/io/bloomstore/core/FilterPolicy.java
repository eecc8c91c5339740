package io.bloomstore.core;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.policy.AdaptiveFilterPolicy;
import io.bloomstore.core.policy.MonkeyFilterPolicy;
import io.bloomstore.core.policy.OptimizeForHitsPolicy;
import io.bloomstore.core.policy.PerLevelFilterPolicy;
import java.util.List;

/**
 * Chooses the filter (kind and bits per key, or none) of every table the store writes, per
 * level: flushes write level 0, compactions the level below their input. A table keeps the
 * filter it was written with; a changed choice reaches a level as its tables are rewritten.
 * <ul>
 *   <li>{@link #uniform}: the same filter everywhere (the default: standard Bloom, 10 bits/key);
 *   <li>{@link #perLevel}: a fixed choice per level;
 *   <li>{@link #monkey}: a total memory budget spread over the levels to minimise the sum of
 *       their false-positive rates (Dayan et al., SIGMOD 2017);
 *   <li>{@link #optimizeForHits()}: no filter at the bottom level (RocksDB's
 *       {@code optimize_filters_for_hits});
 *   <li>{@link #adaptive}: no filter at a level whose measured hit ratio means the filter saves
 *       almost no reads (the Bloom paradox at the deep end of the tree).
 * </ul>
 * See {@code docs/architecture.md}, "Filter policies".
 *
 * <p>Thread safety: implementations must be immutable and safe to call from any thread.
 */
public interface FilterPolicy {

    /** The filter for a table about to be written at {@code level}, given the tree's shape. */
    FilterChoice choose(int level, LevelShape shape);

    /** A short name for statistics and logs. */
    String name();

    /** The same filter at every level; {@code kind} null means tables without filters. */
    static FilterPolicy uniform(FilterKind kind, double bitsPerKey) {
        FilterChoice c = kind == null ? FilterChoice.none("no filters configured")
                : FilterChoice.filter(kind, bitsPerKey, "uniform");
        return PerLevelFilterPolicy.of("uniform", List.of(c));
    }

    /**
     * A fixed choice per level, level 0 first; levels past the end of the list take its last
     * element.
     */
    static FilterPolicy perLevel(List<FilterChoice> levels) {
        return PerLevelFilterPolicy.of("per-level", levels);
    }

    /**
     * Monkey: a budget of {@code budgetBitsPerKey} bits per entry over the whole tree, spread so
     * that the sum of the levels' false-positive rates (the expected data-block reads of a lookup
     * for a missing key) is smallest: each level's rate proportional to its share of the entries.
     */
    static FilterPolicy monkey(FilterKind kind, double budgetBitsPerKey) {
        return new MonkeyFilterPolicy(kind, budgetBitsPerKey);
    }

    /** This policy, but without a filter at the bottom level, where most lookups are hits. */
    default FilterPolicy optimizeForHits() {
        return new OptimizeForHitsPolicy(this);
    }

    /**
     * This policy, but a level whose filter would save fewer than {@code minSavedReads} data-block
     * reads per lookup reaching it — measured over at least {@code minProbes} lookups — gets no
     * filter; see {@link AdaptiveFilterPolicy}.
     */
    default FilterPolicy adaptive(double minSavedReads, long minProbes) {
        return new AdaptiveFilterPolicy(this, minSavedReads, minProbes);
    }
}
