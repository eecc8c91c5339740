package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A level's binary search on the first 8 key bytes, with full keys on a tie, finds the same table
 * as a search on full keys and as a linear scan — for keys shorter than 8 bytes, keys that share
 * their first 8 bytes, and keys that differ only by trailing zero bytes. Seed 20261124.
 */
class VersionSearchTest {

    @Test
    void headSearchAgreesWithAFullKeySearchAndALinearScan() {
        Random random = new Random(20261124);
        for (int round = 0; round < 200; round++) {
            // Distinct keys from a small alphabet, with zero bytes, of 1 to 12 bytes: many ties in 8 bytes.
            TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
            int wanted = 2 + random.nextInt(60);
            while (keys.size() < wanted) {
                keys.add(randomKey(random));
            }
            List<byte[]> sorted = new ArrayList<>(keys);
            // Tables of consecutive pairs of keys (some of one key): disjoint, sorted ranges.
            VersionEdit edit = new VersionEdit();
            List<FileMetaData> files = new ArrayList<>();
            long number = 1;
            for (int i = 0; i < sorted.size(); ) {
                int last = Math.min(sorted.size() - 1, i + random.nextInt(2));
                FileMetaData f = new FileMetaData(number++, 100, 10, sorted.get(i), sorted.get(last), 2, 1, 2);
                files.add(f);
                edit.addFile(3, f);
                i = last + 1;
            }
            Version v = Version.empty().apply(edit);
            assertEquals(files, v.files(3));
            for (int q = 0; q < 200; q++) {
                byte[] key = q % 3 == 0 ? sorted.get(random.nextInt(sorted.size())) : randomKey(random);
                int linear = 0;
                while (linear < files.size() && Arrays.compareUnsigned(files.get(linear).largestKey(), key) < 0) {
                    linear++;
                }
                assertEquals(linear, v.firstEndingAtOrAfter(3, key), Arrays.toString(key));
                assertEquals(linear, Version.firstEndingAtOrAfter(files, key), Arrays.toString(key));
                int covering = -1;
                for (int i = 0; i < files.size(); i++) {
                    if (files.get(i).covers(key)) {
                        covering = i;
                    }
                }
                assertEquals(covering, v.candidateIndex(3, key), Arrays.toString(key));
                assertEquals(covering < 0 ? null : files.get(covering), v.candidate(3, key));
            }
            assertEquals(-1, v.candidateIndex(4, sorted.get(0)), "an empty level holds no candidate");
        }
    }

    @Test
    void branchFreeHeadSearchFindsTheTableForDistinctHeadsAtEveryLevelSize() {
        Random random = new Random(20261124);
        for (int n = 1; n <= 70; n++) {
            // n tables with distinct 8-byte heads (as ordinal-prefixed keys), each covering [2i, 2i+1]
            VersionEdit edit = new VersionEdit();
            List<FileMetaData> files = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                FileMetaData f = new FileMetaData(i + 1, 100, 10, ordinalKey(2L * i * 1000, random),
                        ordinalKey((2L * i + 1) * 1000, random), 2, 1, 2);
                files.add(f);
                edit.addFile(2, f);
            }
            Version v = Version.empty().apply(edit);
            for (long q = -1; q <= 2L * n + 1; q++) {
                for (long delta : new long[] {0, 1, 999}) {
                    byte[] key = ordinalKey(q * 1000 + delta, random);
                    int linear = 0;
                    while (linear < n && Arrays.compareUnsigned(files.get(linear).largestKey(), key) < 0) {
                        linear++;
                    }
                    assertEquals(linear, v.firstEndingAtOrAfter(2, key), "n " + n + " q " + q + " delta " + delta);
                }
            }
        }
    }

    /** 16 bytes: the ordinal big-endian (unsigned order follows the signed value for ordinals ≥ 0; -1 sorts last), then noise. */
    /**
     * Level 0's range check on key heads agrees with {@link FileMetaData#covers} for every table,
     * with overlapping ranges whose bounds share heads with the keys asked (ties) or not.
     */
    @Test
    void level0HeadCheckAgreesWithFullKeyRanges() {
        Random random = new Random(20261124);
        for (int round = 0; round < 200; round++) {
            VersionEdit edit = new VersionEdit();
            int tables = 1 + random.nextInt(12);
            List<byte[]> bounds = new ArrayList<>();
            for (int t = 0; t < tables; t++) {
                byte[] a = randomKey(random);
                byte[] b = randomKey(random);
                boolean ordered = Arrays.compareUnsigned(a, b) <= 0;
                edit.addFile(0, new FileMetaData(t + 1, 100, 10, ordered ? a : b, ordered ? b : a, 2, t * 10L + 1, t * 10L + 2));
                bounds.add(a);
                bounds.add(b);
            }
            Version v = Version.empty().apply(edit);
            List<FileMetaData> level0 = v.files(0);
            for (int q = 0; q < 300; q++) {
                byte[] key = q % 2 == 0 ? bounds.get(random.nextInt(bounds.size())).clone() : randomKey(random);
                if (q % 4 == 0 && key.length > 0) {
                    key[key.length - 1] += (byte) (random.nextBoolean() ? 1 : -1); // a neighbour of a bound
                }
                long head = Version.head(key);
                for (int i = 0; i < level0.size(); i++) {
                    assertEquals(level0.get(i).covers(key), v.level0Covers(i, key, head),
                            "table " + i + ", key " + Arrays.toString(key));
                }
            }
        }
    }

    private static byte[] ordinalKey(long ordinal, Random random) {
        byte[] k = new byte[16];
        for (int b = 0; b < 8; b++) {
            k[b] = (byte) (ordinal >>> (56 - 8 * b));
        }
        for (int b = 8; b < 16; b++) {
            k[b] = (byte) random.nextInt();
        }
        return k;
    }

    private static byte[] randomKey(Random random) {
        byte[] k = new byte[1 + random.nextInt(12)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (i < 6 ? random.nextInt(2) * 0x61 : random.nextInt(3));
        }
        return k;
    }
}
