package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

class CuckooFilterTest {
    private static final long SEED = 777L;

    @Test
    void reachesNinetyPercentLoadBeforeTheFirstFailedInsertAndLosesNothing() {
        System.out.println("CuckooFilterTest seed " + SEED);
        for (int bits : new int[] {8, 12, 16}) {
            Random rnd = new Random(SEED);
            try (CuckooFilter f = CuckooFilter.create(10_000, bits, Storage.NATIVE)) {
                List<Long> in = new ArrayList<>();
                long h;
                while (f.addHash(h = rnd.nextLong())) {
                    in.add(h);
                }
                double load = f.loadFactor();
                System.out.printf("f=%d bits: first failed insert at load %.4f%n", bits, load);
                assertTrue(load >= 0.90, "first failure at load " + load);
                assertEquals(in.size(), f.count());
                for (long k : in) {
                    assertTrue(f.mightContainHash(k), "failed insert lost a key");
                }
            }
        }
    }

    @Test
    void noFalseNegativesAfterInterleavedDeletes() {
        Random rnd = new Random(SEED);
        try (CuckooFilter f = CuckooFilter.create(50_000, 0.01, Storage.HEAP)) {
            List<Long> present = new ArrayList<>();
            for (int round = 0; round < 150_000; round++) {
                if (present.isEmpty() || rnd.nextInt(3) != 0) {
                    long h = rnd.nextLong();
                    if (f.addHash(h)) {
                        present.add(h);
                    }
                } else {
                    long h = present.remove(present.size() - 1 - rnd.nextInt(Math.min(10, present.size())));
                    assertTrue(f.removeHash(h));
                }
            }
            for (long h : present) {
                assertTrue(f.mightContainHash(h), "false negative for " + h);
            }
            assertEquals(present.size(), f.count());
        }
    }

    @Test
    void falsePositiveRateBelowBound() {
        Random rnd = new Random(SEED);
        try (CuckooFilter f = CuckooFilter.create(100_000, 0.01, Storage.HEAP)) {
            assertEquals(10, f.fingerprintBits());
            for (int i = 0; i < 100_000; i++) {
                assertTrue(f.addHash(rnd.nextLong()));
            }
            int fp = 0;
            for (int i = 0; i < 200_000; i++) {
                if (f.mightContainHash(rnd.nextLong())) {
                    fp++;
                }
            }
            // Bound 2b/2^f = 8/1024 ≈ 0.78% at full load; allow 1%.
            assertTrue(fp < 2_000, "false positives " + fp);
        }
    }

    @Test
    void deleteOfAbsentKeyReportsFalse() {
        try (CuckooFilter f = CuckooFilter.create(100, 0.01, Storage.HEAP)) {
            f.add("x".getBytes());
            assertTrue(f.remove("x".getBytes()));
            assertFalse(f.remove("x".getBytes()));
            assertFalse(f.mightContain("x".getBytes()));
        }
    }
}
