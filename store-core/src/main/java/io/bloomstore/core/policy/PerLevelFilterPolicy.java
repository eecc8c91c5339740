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
        if (levels == null || levels.isEmpty() || levels.stream().anyMatch(java.util.Objects::isNull)) {
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
