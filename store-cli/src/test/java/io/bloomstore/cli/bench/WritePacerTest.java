package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link WritePacer} on a simulated clock: when puts are issued, and what a stall does to the schedule. */
class WritePacerTest {
    /** A clock that moves only when the pacer sleeps or the test says a put took time. */
    private static final class FakeClock implements WritePacer.Clock {
        long now = 1_000_000_000L;
        final List<Long> sleeps = new ArrayList<>();

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleepNanos(long nanos) {
            sleeps.add(nanos);
            now += nanos;
        }
    }

    /** The clock readings at which each of {@code puts} puts starts, each put taking {@code putNanos}. */
    private static List<Long> issue(WritePacer pacer, FakeClock clock, int puts, long putNanos) {
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < puts; i++) {
            pacer.awaitTurn();
            starts.add(clock.now);
            clock.now += putNanos;
        }
        return starts;
    }

    @Test
    void putsAreEvenlySpacedAtTheRate() {
        FakeClock clock = new FakeClock();
        WritePacer pacer = new WritePacer(25_000, clock);
        List<Long> starts = issue(pacer, clock, 1_001, 3_000);
        for (int i = 1; i < starts.size(); i++) {
            assertEquals(40_000, starts.get(i) - starts.get(i - 1), "put " + i);
        }
        assertEquals(1_000, clock.sleeps.size(), "one sleep before every put after the first");
    }

    @Test
    void aFractionalIntervalKeepsTheRateOverTime() {
        FakeClock clock = new FakeClock();
        List<Long> starts = issue(new WritePacer(30_000, clock), clock, 30_001, 1_000);
        assertEquals(1_000_000_000L, starts.get(30_000) - starts.get(0), 1, "30,000 intervals of 33,333.3 ns");
    }

    @Test
    void aShortDelayIsCaughtUpAndALongStallIsNotFollowedByABurst() {
        FakeClock clock = new FakeClock();
        WritePacer pacer = new WritePacer(10_000, clock);
        issue(pacer, clock, 10, 1_000);
        // A put held 500 µs (five slots): the next five go at once, then the 100 µs spacing resumes.
        clock.now += 500_000;
        List<Long> after = issue(pacer, clock, 10, 0);
        long burst = after.stream().filter(t -> t.equals(after.get(0))).count();
        assertEquals(5, burst, "the owed puts of a short delay: " + after);
        assertEquals(100_000, after.get(9) - after.get(8));
        // A put held 50 ms: the schedule restarts after it, without the 500 owed puts.
        clock.now += 50_000_000;
        List<Long> afterStall = issue(pacer, clock, 10, 0);
        for (int i = 1; i < afterStall.size(); i++) {
            assertEquals(100_000, afterStall.get(i) - afterStall.get(i - 1), "after the stall: " + afterStall);
        }
    }

    @Test
    void unpacedNeverSleeps() {
        FakeClock clock = new FakeClock();
        WritePacer pacer = new WritePacer(0, clock);
        assertFalse(pacer.paced());
        List<Long> starts = issue(pacer, clock, 100, 0);
        assertEquals(starts.get(0), starts.get(99));
        assertTrue(clock.sleeps.isEmpty());
    }

    @Test
    void aNegativeOrUndefinedRateIsRefused() {
        for (double bad : new double[] {-1, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new WritePacer(bad, WritePacer.SYSTEM));
            assertTrue(e.getMessage().contains("writer rate"), e.getMessage());
        }
    }
}
