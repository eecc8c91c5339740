package io.bloomstore.core.stats;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

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
    private static final LongSupplier NONE = () -> 0;

    private final LongAdder adder = new LongAdder();
    private final LongSupplier tallied;

    public Counter() {
        this(NONE);
    }

    /** A counter whose sum adds {@code tallied}: the per-thread rows' share of the same count. */
    Counter(LongSupplier tallied) {
        this.tallied = tallied;
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
        return adder.sum() + tallied.getAsLong();
    }
}
