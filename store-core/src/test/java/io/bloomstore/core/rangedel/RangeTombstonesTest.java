package io.bloomstore.core.rangedel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Fragmenting, and the point and whole-range questions, checked against a brute force over every tombstone. */
class RangeTombstonesTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static RangeTombstone t(String from, String to, long seq) {
        return new RangeTombstone(b(from), b(to), seq);
    }

    @Test
    void overlappingTombstonesAreFragmented() {
        RangeTombstones rt = RangeTombstones.of(List.of(t("a", "c", 5), t("b", "d", 7)));
        assertEquals(3, rt.fragments());
        assertEquals("a", new String(rt.fragmentStart(0), StandardCharsets.UTF_8));
        assertEquals("b", new String(rt.fragmentEnd(0), StandardCharsets.UTF_8));
        int mid = rt.fragmentIndex(b("bb"));
        assertEquals(1, mid);
        assertEquals(7, rt.newestVisible(mid, 100));
        assertEquals(5, rt.newestVisible(mid, 6));
        assertEquals(0, rt.newestVisible(mid, 4));
        assertEquals(5, rt.oldestNewerThan(mid, 1));
        assertEquals(7, rt.oldestNewerThan(mid, 5));
        assertEquals(Long.MAX_VALUE, rt.oldestNewerThan(mid, 7));
        assertEquals(-1, rt.fragmentIndex(b("d")), "the end is exclusive");
        assertEquals(-1, rt.fragmentIndex(b("0")));
    }

    @Test
    void emptyIsShared() {
        assertSame(RangeTombstones.EMPTY, RangeTombstones.of(List.of()));
        assertTrue(RangeTombstones.EMPTY.isEmpty());
        assertFalse(RangeTombstones.EMPTY.covers(b("a"), 1, 100));
    }

    @Test
    void startMustBeBelowEnd() {
        assertThrows(IllegalArgumentException.class, () -> t("b", "a", 1));
        assertThrows(IllegalArgumentException.class, () -> t("a", "a", 1));
    }

    @Test
    void coversWholeNeedsEveryFragmentNewer() {
        RangeTombstones rt = RangeTombstones.of(List.of(t("a", "c", 5), t("c", "e", 9), t("g", "h", 20)));
        assertEquals(9, rt.coversWhole(b("a"), b("d"), 4));
        assertEquals(0, rt.coversWhole(b("a"), b("d"), 5), "[a, c) is not newer than 5");
        assertEquals(0, rt.coversWhole(b("a"), b("e"), 1), "e itself is not covered");
        assertEquals(0, rt.coversWhole(b("d"), b("g"), 1), "a gap at [e, g)");
    }

    @Test
    void randomSetsMatchBruteForce() {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<RangeTombstone> all = new ArrayList<>();
            int n = 1 + r.nextInt(8);
            for (int i = 0; i < n; i++) {
                int x = r.nextInt(20);
                int y = x + 1 + r.nextInt(8);
                // Sequence numbers are unique in a store (one per operation).
                all.add(new RangeTombstone(new byte[] {(byte) x}, new byte[] {(byte) y}, 1 + i * 6 + r.nextInt(6)));
            }
            RangeTombstones rt = RangeTombstones.of(all);
            for (int k = 0; k < 30; k++) {
                byte[] key = {(byte) k};
                long seq = r.nextInt(60);
                long snap = r.nextInt(60);
                boolean expected = false;
                for (RangeTombstone t : all) {
                    expected |= t.start()[0] <= k && k < t.end()[0] && seq < t.sequence() && t.sequence() <= snap;
                }
                assertEquals(expected, rt.covers(key, seq, snap), "seed " + seed + " key " + k + " " + all);
            }
        }
    }
}
