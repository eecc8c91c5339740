package io.bloomstore.cli.streams;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The eos-crash bench's check of outputs ({@link EosCrashBench.Expected}): the outputs of a run
 * without a crash pass; a repeat, a gap, a missing or a foreign output fails, naming it.
 */
class EosCrashExpectedTest {
    private static final long T0 = 1_700_000_003_000L;

    /** The windowed count's outputs of a run without a crash, in input order: key@window -> count. */
    private static List<String[]> windowedOutputs(int events) {
        long windowMs = BrokerWorkload.WINDOW.toMillis();
        java.util.Map<String, Integer> counts = new java.util.HashMap<>();
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            String key = "w" + (i % EosCrashBench.WINDOW_KEYS) + "@"
                    + (T0 + i / EosCrashBench.EVENTS_PER_MS) / windowMs * windowMs;
            out.add(new String[] {key, String.valueOf(counts.merge(key, 1, Integer::sum))});
        }
        return out;
    }

    private static String check(int events, List<String[]> outputs) {
        EosCrashBench.Expected e = new EosCrashBench.WindowExpected(events, T0);
        for (String[] o : outputs) {
            e.accept(o[0], o[1]);
        }
        return e.mismatch(outputs.size());
    }

    @Test
    void windowedCountsPassExactlyAsWithoutACrash() {
        // 2.5 M events: 50,000 ms of event time, so windows of 500,000 keys each and keys seen twice in some.
        int events = 2_500_000;
        List<String[]> outputs = windowedOutputs(events);
        assertEquals(events, new EosCrashBench.WindowExpected(events, T0).outputs());
        assertNull(check(events, outputs));

        List<String[]> repeated = new ArrayList<>(outputs);
        repeated.add(1_000, repeated.get(999));
        assertTrue(check(events, repeated).contains("count 1 after 1"), check(events, repeated));

        List<String[]> gap = new ArrayList<>(outputs);
        gap.remove(10);
        assertEquals(events - 1 + " outputs, expected " + events, check(events, gap));

        List<String[]> foreign = new ArrayList<>(outputs);
        foreign.set(5, new String[] {"x5@" + T0, "1"});
        assertTrue(check(events, foreign).contains("no key or window"), check(events, foreign));
    }

    @Test
    void aCountInTheWrongWindowIsNamedThoughTheTotalMatches() {
        // 50 events a millisecond from T0 (3 s into a 10 s window): the first window holds events
        // 0 … 349,999, the next 350,000 … 849,999; key w7 has an event in the first, none in the next.
        int events = 2_000_000;
        long windowMs = BrokerWorkload.WINDOW.toMillis();
        long first = T0 / windowMs * windowMs;
        List<String[]> outputs = windowedOutputs(events);
        assertEquals("w7@" + first, outputs.get(7)[0]);
        outputs.set(7, new String[] {"w7@" + (first + windowMs), "1"});
        assertEquals("w7@" + first + ": 0 outputs, expected 1", check(events, outputs));
    }

    @Test
    void dedupWantsEachDistinctIdOnce() {
        String[] records = {"a", "b", "a", "c", "b"};
        EosCrashBench.Expected e = new EosCrashBench.DedupExpected(records);
        assertEquals(3, e.outputs());
        for (String id : new String[] {"a", "b", "c"}) {
            e.accept(id, "e");
        }
        assertNull(e.mismatch(3));

        EosCrashBench.Expected twice = new EosCrashBench.DedupExpected(records);
        for (String id : new String[] {"a", "b", "b"}) {
            twice.accept(id, "e");
        }
        assertTrue(twice.mismatch(3).contains("id b output 2 times"), twice.mismatch(3));

        EosCrashBench.Expected stranger = new EosCrashBench.DedupExpected(records);
        for (String id : new String[] {"a", "b", "z"}) {
            stranger.accept(id, "e");
        }
        assertTrue(stranger.mismatch(3).contains("id z"), stranger.mismatch(3));
    }
}
