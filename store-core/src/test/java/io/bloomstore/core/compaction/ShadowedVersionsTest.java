package io.bloomstore.core.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which versions a compaction keeps, for given snapshots, in and out of the bottom level. */
class ShadowedVersionsTest {
    private static final byte[] A = "a".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] B = "b".getBytes(StandardCharsets.US_ASCII);

    @Test
    void keepsTheNewestVersionAndOnePerSnapshot() {
        ShadowedVersions gc = new ShadowedVersions(new long[] {6}, false);
        assertEquals(List.of(10L, 5L), kept(gc, A, new long[] {10, 8, 5, 3}, ValueType.VALUE));
        // A new key starts afresh.
        assertEquals(List.of(4L), kept(gc, B, new long[] {4, 2}, ValueType.VALUE));
    }

    @Test
    void manySnapshotsBetweenVersions() {
        ShadowedVersions gc = new ShadowedVersions(new long[] {9, 3, 3, 7}, false);
        assertEquals(List.of(10L, 8L, 6L, 2L), kept(gc, A, new long[] {10, 8, 6, 5, 2, 1}, ValueType.VALUE));
    }

    @Test
    void tombstonesGoAtTheBottomOnlyWithoutOlderSnapshots() {
        ShadowedVersions bottom = new ShadowedVersions(new long[0], true);
        assertEquals(List.of(), keptWithTombstone(bottom, 7, 2));
        ShadowedVersions snapshotBelow = new ShadowedVersions(new long[] {4}, true);
        assertEquals(List.of(7L, 2L), keptWithTombstone(snapshotBelow, 7, 2));
        ShadowedVersions notBottom = new ShadowedVersions(new long[0], false);
        assertEquals(List.of(7L), keptWithTombstone(notBottom, 7, 2));
        ShadowedVersions snapshotAbove = new ShadowedVersions(new long[] {8}, true);
        assertEquals(List.of(), keptWithTombstone(snapshotAbove, 7, 2));
    }

    @Test
    void rangeTombstonesEndAVersionsLifeAsANewerVersionDoes() {
        RangeTombstones rt = RangeTombstones.of(List.of(new RangeTombstone(A, B, 6)));
        // No snapshot: everything older than the tombstone at 6 goes, newer versions stay.
        assertEquals(List.of(10L), kept(new ShadowedVersions(new long[0], false, rt), A, new long[] {10, 5, 3},
                ValueType.VALUE));
        // A snapshot at 4 (before the tombstone) still reads the version at 3.
        assertEquals(List.of(10L, 3L), kept(new ShadowedVersions(new long[] {4}, false, rt), A,
                new long[] {10, 5, 3}, ValueType.VALUE));
        // A snapshot at 5 reads 5; the version at 3 is shadowed by 5.
        assertEquals(List.of(5L), kept(new ShadowedVersions(new long[] {5}, false, rt), A, new long[] {5, 3},
                ValueType.VALUE));
        // A snapshot at 6 sees the tombstone: nothing under it is needed.
        assertEquals(List.of(), kept(new ShadowedVersions(new long[] {6}, false, rt), A, new long[] {5, 3},
                ValueType.VALUE));
        // Outside the range ([a, b)): untouched.
        assertEquals(List.of(5L), kept(new ShadowedVersions(new long[0], false, rt), B, new long[] {5, 3},
                ValueType.VALUE));
    }

    private static List<Long> kept(ShadowedVersions gc, byte[] key, long[] sequences, ValueType type) {
        List<Long> out = new ArrayList<>();
        for (long s : sequences) {
            if (gc.keep(key, s, type)) {
                out.add(s);
            }
        }
        return out;
    }

    private static List<Long> keptWithTombstone(ShadowedVersions gc, long deletion, long value) {
        List<Long> out = new ArrayList<>();
        if (gc.keep(A, deletion, ValueType.DELETION)) {
            out.add(deletion);
        }
        if (gc.keep(A, value, ValueType.VALUE)) {
            out.add(value);
        }
        return out;
    }
}
