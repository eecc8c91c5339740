package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeySpaceTest {

    @Test
    void loadedKeysAscendAndMissingKeysInterleaveWithoutOverlap() {
        KeySpace space = new KeySpace(1000, 16);
        byte[] prev = null;
        Set<String> present = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            byte[] p = space.newKeyBuffer();
            byte[] m = space.newKeyBuffer();
            space.present(i, p);
            space.missing(i, m);
            assertEquals(16, p.length);
            assertTrue(Arrays.compareUnsigned(p, m) < 0, "missing key " + i + " sorts after loaded key " + i);
            if (prev != null) {
                assertTrue(Arrays.compareUnsigned(prev, p) < 0, "loaded keys ascend at " + i);
            }
            prev = p;
            present.add(Arrays.toString(p));
        }
        for (int i = 0; i < 1000; i++) {
            byte[] m = space.newKeyBuffer();
            space.missing(i, m);
            assertTrue(!present.contains(Arrays.toString(m)), "missing key " + i + " is a loaded key");
        }
    }

    @Test
    void shuffleIsAPermutationFixedBySeed() {
        KeySpace space = new KeySpace(5000, 8);
        int[] order = space.shuffledIndices(3);
        int[] sorted = order.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(i, sorted[i]);
        }
        assertArrayEquals(order, space.shuffledIndices(3));
    }
}
