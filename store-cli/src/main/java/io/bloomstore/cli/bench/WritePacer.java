package io.bloomstore.cli.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Paces readwhilewriting's writer ({@code bench --writer-rate OPS}, as db_bench's
 * {@code --benchmark_write_rate_limit}) so that every engine's readers run beside the same write
 * load: put {@code n} is due {@code n × 1/OPS} seconds after the first, and the writer sleeps until
 * it is due. The puts are evenly spaced, not granted in bursts: a writer that falls behind (a put
 * held by a flush, or a sleep that overslept) issues the puts it owes back to back only while it is
 * at most {@link #MAX_LAG_NANOS} late; the slots of a longer stall are dropped, so no stall is
 * followed by a burst of more than a millisecond's puts. The achieved rate is what the bench
 * reports (puts over the workload's seconds); it is below OPS when the engine cannot keep up.
 *
 * <p>Thread safety: one writer thread per pacer.
 */
final class WritePacer {
    /** How late the writer may be and still catch up on the puts it owes. */
    static final long MAX_LAG_NANOS = 1_000_000L;

    /** Time source and sleep; a test replaces both. */
    interface Clock {
        long nanoTime();

        void sleepNanos(long nanos);
    }

    static final Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void sleepNanos(long nanos) {
            LockSupport.parkNanos(nanos);
        }
    };

    private final double intervalNanos;
    private final Clock clock;
    private long origin;
    private long slot;
    private boolean started;

    /** A pacer of {@code opsPerSecond} puts a second; 0 for none (every {@link #awaitTurn} returns at once). */
    WritePacer(double opsPerSecond, Clock clock) {
        if (!(opsPerSecond >= 0) || Double.isInfinite(opsPerSecond)) {
            throw new IllegalArgumentException("writer rate must be a non-negative number of puts per second: "
                    + opsPerSecond);
        }
        this.intervalNanos = opsPerSecond == 0 ? 0 : 1e9 / opsPerSecond;
        this.clock = clock;
    }

    /** Whether this pacer limits the rate at all. */
    boolean paced() {
        return intervalNanos > 0;
    }

    /**
     * Waits until the next put is due; returns at once the first time (the schedule starts
     * there) and always when unpaced. Returns early, with the put not yet due, if the thread is
     * interrupted (the caller checks its stop flag).
     */
    void awaitTurn() {
        if (intervalNanos == 0) {
            return;
        }
        long now = clock.nanoTime();
        if (!started) {
            started = true;
            origin = now;
            slot = 0;
            return;
        }
        slot++;
        long due = origin + Math.round(slot * intervalNanos);
        if (now - due > MAX_LAG_NANOS) {
            // A stall: restart the schedule here rather than owe its puts.
            origin = now;
            slot = 0;
            return;
        }
        while (due - now > 0 && !Thread.currentThread().isInterrupted()) {
            clock.sleepNanos(due - now);
            now = clock.nanoTime();
        }
    }
}
