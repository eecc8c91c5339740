package io.bloomstore.core.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * One monotonic event counter of the engine: it only counts up ({@link #increment()},
 * {@link #add(long)} of a non-negative amount) and is read as a sum; it cannot be reset or set.
 *
 * <p>Thread safety: safe for concurrent use; contended increments are cheap (a {@link LongAdder}).
 */
public final class Counter {
    private final LongAdder adder = new LongAdder();

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
        return adder.sum();
    }
}
