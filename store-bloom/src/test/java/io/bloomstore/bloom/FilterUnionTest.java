package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.storage.Storage;

/** Merging filters built with the same parameters, as web proxies exchange them in the seeds. */
class FilterUnionTest {

    @Test
    void unionOfBloomFiltersEqualsTheFilterOfAllKeys() {
        try (BloomFilter a = BloomFilter.create(100_000, 7, Storage.HEAP);
             BloomFilter b = BloomFilter.create(100_000, 7, Storage.NATIVE);
             BloomFilter all = BloomFilter.create(100_000, 7, Storage.HEAP)) {
            for (int i = 0; i < 10_000; i++) {
                (i % 2 == 0 ? a : b).add(key(i));
                all.add(key(i));
            }
            a.union(b);
            assertEquals(10_000, a.count());
            for (long i = 0; i < a.m(); i++) {
                assertEquals(all.bit(i), a.bit(i), "bit " + i);
            }
            for (int i = 0; i < 10_000; i++) {
                assertTrue(a.mightContain(key(i)));
            }
        }
    }

    @Test
    void unionOfBlockedFiltersEqualsTheFilterOfAllKeys() {
        try (BlockedBloomFilter a = BlockedBloomFilter.create(5_000, 0.01, Storage.NATIVE);
             BlockedBloomFilter b = BlockedBloomFilter.create(5_000, 0.01, Storage.HEAP);
             BlockedBloomFilter all = BlockedBloomFilter.create(5_000, 0.01, Storage.HEAP)) {
            for (int i = 0; i < 5_000; i++) {
                (i < 2_500 ? a : b).add(key(i));
                all.add(key(i));
            }
            a.union(b);
            for (int i = 0; i < 50_000; i++) {
                assertEquals(all.mightContain(key(i)), a.mightContain(key(i)), "key " + i);
            }
        }
    }

    @Test
    void mismatchedParametersAreRefused() {
        try (BloomFilter a = BloomFilter.create(1000, 5, Storage.HEAP);
             BloomFilter otherM = BloomFilter.create(1001, 5, Storage.HEAP);
             BloomFilter otherK = BloomFilter.create(1000, 6, Storage.HEAP);
             BloomFilter otherSeed = BloomFilter.create(1000, 5, HashStrategy.XXH3_64, 1, Storage.HEAP);
             BloomFilter otherHash = BloomFilter.create(1000, 5, HashStrategy.XXH64, 0, Storage.HEAP);
             BlockedBloomFilter blockedA = BlockedBloomFilter.create(1024, 5, HashStrategy.XXH3_64, 0, Storage.HEAP);
             BlockedBloomFilter blockedB = BlockedBloomFilter.create(2048, 5, HashStrategy.XXH3_64, 0, Storage.HEAP)) {
            for (BloomFilter other : new BloomFilter[] {otherM, otherK, otherSeed, otherHash}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.union(other));
                assertTrue(e.getMessage().startsWith("cannot merge"), e.getMessage());
            }
            BloomFilter custom = BloomFilter.withHashFunctions(1000, x -> x, x -> 3 * x, x -> x * x, x -> x + 1, x -> x + 2);
            assertThrows(IllegalArgumentException.class, () -> a.union(custom));
            assertThrows(IllegalArgumentException.class, () -> blockedA.union(blockedB));
            assertEquals(0, a.count());
        }
    }

    private static byte[] key(int i) {
        return ("user:" + i).getBytes(StandardCharsets.UTF_8);
    }
}
