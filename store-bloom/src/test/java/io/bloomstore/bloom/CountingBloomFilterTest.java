package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

class CountingBloomFilterTest {
    private static final long SEED = 20240301L;

    @Test
    void noFalseNegativesAfterInterleavedRemoves() {
        System.out.println("CountingBloomFilterTest seed " + SEED);
        Random rnd = new Random(SEED);
        for (Storage storage : Storage.values()) {
            try (CountingBloomFilter f = CountingBloomFilter.create(20_000, 0.01, storage)) {
                Set<Long> present = new HashSet<>();
                for (int round = 0; round < 60_000; round++) {
                    if (present.isEmpty() || rnd.nextInt(3) != 0) {
                        long h = rnd.nextLong();
                        f.addHash(h);
                        present.add(h);
                    } else {
                        long h = present.iterator().next();
                        present.remove(h);
                        f.removeHash(h);
                    }
                }
                for (long h : present) {
                    assertTrue(f.mightContainHash(h), "false negative for present key " + h);
                }
                assertEquals(present.size(), f.count());
            }
        }
    }

    @Test
    void saturatedCountersAreNeverDecremented() {
        // Two counters, one probe: 40 keys pile onto each counter, far past 15.
        try (CountingBloomFilter f = CountingBloomFilter.create(2, 1, Storage.HEAP)) {
            Random rnd = new Random(SEED);
            long[] keys = new long[40];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = rnd.nextLong();
                f.addHash(keys[i]);
            }
            assertEquals(CountingBloomFilter.MAX_COUNT, f.counter(0));
            assertEquals(CountingBloomFilter.MAX_COUNT, f.counter(1));
            for (int i = 0; i < keys.length - 1; i++) {
                f.removeHash(keys[i]);
            }
            assertEquals(CountingBloomFilter.MAX_COUNT, f.counter(0), "saturated counter decremented");
            assertEquals(CountingBloomFilter.MAX_COUNT, f.counter(1), "saturated counter decremented");
            assertTrue(f.mightContainHash(keys[keys.length - 1]), "false negative after saturation");
        }
    }

    @Test
    void removeOfANeverAddedKeyIsRefusedAndChangesNothing() {
        try (CountingBloomFilter f = CountingBloomFilter.create(1_000, 0.01, Storage.HEAP)) {
            f.add("a".getBytes());
            long absent = 0;
            Random rnd = new Random(SEED);
            do {
                absent = rnd.nextLong();
            } while (f.mightContainHash(absent));
            long h = absent;
            assertThrows(IllegalArgumentException.class, () -> f.removeHash(h));
            assertTrue(f.mightContain("a".getBytes()));
            assertEquals(1, f.count());
        }
    }

    @Test
    void unsaturatedCountersReturnToZero() {
        try (CountingBloomFilter f = CountingBloomFilter.create(1_000, 0.01, Storage.NATIVE)) {
            f.add("k".getBytes());
            f.remove("k".getBytes());
            assertFalse(f.mightContain("k".getBytes()));
            for (long i = 0; i < f.m(); i++) {
                assertEquals(0, f.counter(i));
            }
        }
    }
}
