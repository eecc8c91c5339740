package io.bloomstore.core.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The key ranges of a split level 0 → 1 compaction: ascending, distinct boundaries strictly inside
 * the inputs' key range (no empty first or last range), at most the threads allowed, about equal
 * input bytes each, and no split of a small compaction, a deeper one or a merge inside level 0.
 */
class SubcompactionsTest {
    private static final long MIB = 1 << 20;

    @Test
    void splitsLevel0IntoLevel1IntoBalancedAscendingRanges() {
        // Four overlapping level-0 tables over keys 000..999 and ten level-1 tables of 100 keys each.
        List<FileMetaData> l0 = List.of(table(1, 0, 999, 4 * MIB), table(2, 0, 999, 4 * MIB),
                table(3, 100, 899, 4 * MIB), table(4, 0, 999, 4 * MIB));
        List<FileMetaData> l1 = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            l1.add(table(10 + i, i * 100, i * 100 + 99, 8 * MIB));
        }
        Compaction c = new Compaction(Version.empty(), 0, 1, l0, l1);
        for (int threads = 2; threads <= 4; threads++) {
            List<byte[]> bounds = Subcompactions.boundaries(c, threads, 8 * MIB);
            assertEquals(threads - 1, bounds.size(), "ranges for " + threads + " threads");
            byte[] previous = c.smallestKey();
            for (byte[] b : bounds) {
                assertTrue(Arrays.compareUnsigned(b, previous) > 0, "ascending, first range not empty");
                previous = b;
            }
            assertTrue(Arrays.compareUnsigned(previous, c.largestKey()) < 0, "last range not empty");
            // Level 1 is uniform and level 0 nearly so: each range holds about its share of the keys.
            int first = Integer.parseInt(new String(bounds.get(0), StandardCharsets.UTF_8));
            int expected = 1000 / threads;
            assertTrue(Math.abs(first - expected) <= 150, "first boundary " + first + " near " + expected);
        }
    }

    @Test
    void doesNotSplitSmallDeeperOrIntraLevel0Compactions() {
        List<FileMetaData> l0 = List.of(table(1, 0, 999, MIB), table(2, 0, 999, MIB));
        List<FileMetaData> l1 = List.of(table(3, 0, 499, MIB), table(4, 500, 999, MIB));
        assertTrue(Subcompactions.boundaries(new Compaction(Version.empty(), 0, 1, l0, l1), 4, 8 * MIB).isEmpty(),
                "4 MiB of input is under two 8 MiB ranges");
        assertTrue(Subcompactions.boundaries(new Compaction(Version.empty(), 0, 1, l0, l1), 1, 1).isEmpty(),
                "one thread");
        List<FileMetaData> big = List.of(table(5, 0, 999, 64 * MIB));
        assertTrue(Subcompactions.boundaries(new Compaction(Version.empty(), 1, 2, big, List.of()), 4, MIB).isEmpty(),
                "level 1 -> 2");
        assertTrue(Subcompactions.boundaries(new Compaction(Version.empty(), 0, 0, l0, List.of()), 4, 1).isEmpty(),
                "inside level 0");
    }

    private static FileMetaData table(long number, int from, int to, long bytes) {
        return new FileMetaData(number, bytes, 0, key(from), key(to), bytes / 100, number * 1000, number * 1000 + 999);
    }

    private static byte[] key(int i) {
        return String.format("%03d", i).getBytes(StandardCharsets.UTF_8);
    }
}
