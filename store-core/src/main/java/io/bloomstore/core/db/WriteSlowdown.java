package io.bloomstore.core.db;

import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write slowdown of a store whose level 0 reached its slowdown trigger, as RocksDB's write
 * controller: each write group is charged its bytes at {@code delayedWriteRate}, and the writer
 * sleeps once the debt reaches a millisecond; counted ({@code writeSlowdowns}) and logged once when
 * it starts and once when level 0 falls back below the trigger; and the sleep itself
 * ({@link #pause}). The stop at {@code l0StopTrigger} and the waits for a free memtable stay with
 * {@link MemtableSwitcher}.
 *
 * <p>Thread safety: under the store's write mutex ({@link #pause}: any thread, no lock).
 */
final class WriteSlowdown {
    /** A slowed group sleeps once the write debt reaches this (RocksDB's write controller refills per millisecond). */
    private static final long MIN_DELAY_NANOS = 1_000_000;

    /** The logger, made on first use: a store that logs nothing never starts SLF4J. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DbWrite.class);
    }

    private final DbState db;
    /** When write groups started being slowed, 0 when not. */
    private long slowedSince;
    private long slowedGroups;
    /** While slowed: when the writes admitted so far would have finished at the delayed rate. */
    private long delayedUntil;
    /** While slowed: the time writers slept. */
    private long delayedNanos;

    WriteSlowdown(DbState db) {
        this.db = db;
    }

    /**
     * A group of {@code groupBytes} arrives while level 0 holds {@code level0} tables, at or past the
     * slowdown trigger: charges it, and returns the nanoseconds the writer sleeps now (0: none).
     */
    long delayFor(int level0, long groupBytes) {
        db.counters.writeSlowdowns().increment();
        long now = System.nanoTime();
        if (slowedSince == 0) {
            slowedSince = now;
            delayedUntil = now;
            Log.LOG.info("Writes slowed: level 0 holds {} tables (slowdown trigger {}); writes held to {} bytes/s",
                    level0, db.options.l0SlowdownTrigger(), db.options.delayedWriteRate());
        }
        slowedGroups++;
        delayedUntil = Math.max(delayedUntil, now) + (long) (groupBytes * 1e9 / db.options.delayedWriteRate());
        long wait = delayedUntil - now;
        if (wait < MIN_DELAY_NANOS) {
            return 0;
        }
        delayedNanos += wait;
        return wait;
    }

    /** Ends a slowdown (and logs what it cost) once level 0 holds fewer tables than the trigger. */
    void endIfBelow(int level0) {
        if (slowedSince != 0 && level0 < db.options.l0SlowdownTrigger()) {
            Log.LOG.info("Writes no longer slowed: {} write groups slowed over {} ms, {} ms of it asleep", slowedGroups,
                    (System.nanoTime() - slowedSince) / 1_000_000, delayedNanos / 1_000_000);
            slowedSince = 0;
            slowedGroups = 0;
            delayedNanos = 0;
        }
    }

    /**
     * Sleeps {@code nanos}, to the timer's precision, unless the thread is interrupted (its flag
     * is left set). Not {@code Thread.sleep(millis, nanos)}: up to Java 20 that rounds any
     * nanoseconds up to a whole millisecond, so the slowdown's delays of just over a millisecond
     * slept two, held writes to about half of {@code delayedWriteRate}, and set the p99.9 of
     * updates (2.2–4.1 ms against RocksDB's 1.2 ms with 1 KiB values).
     */
    static void pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && !Thread.currentThread().isInterrupted(); left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
