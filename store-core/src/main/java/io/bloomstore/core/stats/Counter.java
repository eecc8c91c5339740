package io.bloomstore.core.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * One monotonic event counter of the engine: it only counts up ({@link #increment()},
 * {@link #add(long)} of a non-negative amount) and is read as a sum; it cannot be reset or set.
 *
 * <p>A counter of the point-lookup path also sums the per-thread rows of a {@link TallyRegistry}
 * slot, which that path increments without an atomic instruction ({@link ThreadTally}).
 *
 * <p>Thread safety: safe for concurrent use; contended increments are cheap (a {@link LongAdder}).
 */
public final class Counter {
    private final LongAdder adder = new LongAdder();
    /** The per-thread rows summed into this counter, null for none; {@code slot} is their slot. */
    private final TallyRegistry tallies;
    private final int slot;

    public Counter() {
        this(null, -1);
    }

    /**
     * A counter whose sum adds slot {@code slot} of {@code tallies}: the per-thread rows' share of
     * the same count. (A registry and a slot rather than a function: a lambda here would be spun
     * at the first open of every process.)
     */
    Counter(TallyRegistry tallies, int slot) {
        this.tallies = tallies;
        this.slot = slot;
    }

    public void increment() {
        adder.increment();
    }

    /** Adds {@code amount}, which must not be negative (a counter never goes down). */
    public void add(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("a counter only counts up: " + amount);
        }
        adder.add(amount);
    }

    /** The count so far. */
    public long sum() {
        return tallies == null ? adder.sum() : adder.sum() + tallies.sum(slot);
    }
}
