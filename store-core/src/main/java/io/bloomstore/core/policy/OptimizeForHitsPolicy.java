package io.bloomstore.core.policy;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.FilterPolicy;
import io.bloomstore.core.LevelShape;

/**
 * Another policy's choice, except that tables at the bottom level get no filter (RocksDB's
 * {@code optimize_filters_for_hits}). When lookups are mostly for keys that exist, a lookup that
 * gets past the upper levels almost always finds its key at the bottom, so the bottom filter
 * would answer "maybe" and save nothing — while holding most of the filter memory, since the
 * bottom level holds most of the entries. Level 0 is never the bottom.
 *
 * <p>Thread safety: immutable.
 */
public final class OptimizeForHitsPolicy implements FilterPolicy {
    private final FilterPolicy inner;

    public OptimizeForHitsPolicy(FilterPolicy inner) {
        if (inner == null) {
            throw new IllegalArgumentException("inner policy must not be null");
        }
        this.inner = inner;
    }

    @Override
    public FilterChoice choose(int level, LevelShape shape) {
        FilterChoice c = inner.choose(level, shape);
        return level > 0 && level >= shape.bottomLevel() ? c.skip("bottom level, optimized for hits") : c;
    }

    @Override
    public String name() {
        return inner.name() + "+optimize-for-hits";
    }

    @Override
    public String toString() {
        return inner + "+optimizeForHits";
    }
}
