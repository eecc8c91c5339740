package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The write slowdown's sleep ({@link WriteSlowdown#pause}) lasts what it is asked for, not the next
 * whole millisecond: {@code Thread.sleep(millis, nanos)} rounds up on Java 17, so a delay of just
 * over a millisecond slept two and held writes to about half the configured rate.
 *
 * <p>Statistical: the median of 21 pauses of 200 µs must be under 900 µs (a pause rounded to the
 * millisecond takes at least 1,000 µs every time); the tolerance leaves 700 µs for the timer and
 * the scheduler on a loaded machine. No seed: nothing random.
 */
class WriteDelayTest {
    @Test
    void aPauseLastsWhatItIsAskedForNotTheNextMillisecond() {
        long[] micros = new long[21];
        for (int i = 0; i < micros.length; i++) {
            long t0 = System.nanoTime();
            WriteSlowdown.pause(200_000);
            micros[i] = (System.nanoTime() - t0) / 1_000;
            assertTrue(micros[i] >= 200, "a pause never ends early: " + micros[i] + " µs");
        }
        Arrays.sort(micros);
        assertTrue(micros[micros.length / 2] < 900, "median pause " + micros[micros.length / 2] + " µs of 200 µs asked: "
                + Arrays.toString(micros));
    }

    @Test
    void anInterruptEndsAPauseAndStaysSet() {
        Thread.currentThread().interrupt();
        long t0 = System.nanoTime();
        WriteSlowdown.pause(5_000_000_000L);
        long elapsed = System.nanoTime() - t0;
        assertTrue(Thread.interrupted(), "the interrupt is left set");
        assertTrue(elapsed < 4_000_000_000L, "an interrupted pause returns: " + elapsed / 1_000_000 + " ms");
    }
}
