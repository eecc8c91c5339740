package io.bloomstore.core.policy;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.FilterPolicy;
import io.bloomstore.core.LevelShape;
import java.util.List;

/**
 * A fixed filter per level, whatever the tree looks like; levels past the end of the list take
 * its last element. {@link FilterPolicy#uniform} is the one-element case.
 *
 * <p>Thread safety: immutable.
 */
public final class PerLevelFilterPolicy implements FilterPolicy {
    private final String name;
    private final List<FilterChoice> levels;

    private PerLevelFilterPolicy(String name, List<FilterChoice> levels) {
        this.name = name;
        this.levels = levels;
    }

    /** A policy named {@code name} giving level i {@code levels.get(min(i, size − 1))}. */
    public static PerLevelFilterPolicy of(String name, List<FilterChoice> levels) {
        // A loop, not a stream: every store's options build one, and a one-shot command paid some
        // 7 ms for linking the first stream pipeline and method reference of its process.
        boolean anyNull = levels == null || levels.isEmpty();
        for (int i = 0; !anyNull && i < levels.size(); i++) {
            anyNull = levels.get(i) == null;
        }
        if (anyNull) {
            throw new IllegalArgumentException("need at least one non-null filter choice");
        }
        return new PerLevelFilterPolicy(name, List.copyOf(levels));
    }

    @Override
    public FilterChoice choose(int level, LevelShape shape) {
        return levels.get(Math.min(level, levels.size() - 1));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return name + levels;
    }
}
