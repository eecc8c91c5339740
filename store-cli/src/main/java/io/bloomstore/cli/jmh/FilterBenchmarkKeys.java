package io.bloomstore.cli.jmh;

import java.util.SplittableRandom;

/**
 * The benchmark's keys: {@value #COUNT} random 16-byte keys from a fixed seed. The first
 * half are inserted; queries walk all of them, so half the lookups hit and half miss.
 */
final class FilterBenchmarkKeys {
    static final int COUNT = 1 << 21;
    static final int INSERTED = COUNT / 2;
    static final long SEED = 42;

    private FilterBenchmarkKeys() {
    }

    static byte[][] generate() {
        SplittableRandom random = new SplittableRandom(SEED);
        byte[][] keys = new byte[COUNT][16];
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
        return keys;
    }
}
