package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The promise the store is built around: once data is in SSTables, looking up keys that are absent
 * costs no data-block read except for the filter's false positives, and those occur at the
 * configured rate.
 *
 * <p>Deterministic (fixed keys, fixed hash): 50,000 keys in 5 tables, 20,000 absent lookups, so
 * 100,000 filter probes. At 10 bits/key the expected false positives are about 820 for Bloom
 * (σ ≈ 29, 3.5%) and 391 for binary fuse (2^−8; σ ≈ 20, 5%); the measured rate must be within
 * 25% of the configured one (7σ and 5σ).
 */
class FilterPromiseTest {
    private static final int KEYS = 50_000;
    private static final int TABLES = 5;
    private static final int ABSENT = 20_000;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = FilterKind.class, names = {"BLOOM", "BLOCKED_BLOOM", "BINARY_FUSE"})
    void absentKeysCostNoDataBlockReadsExceptFalsePositives(FilterKind kind) throws IOException {
        StoreOptions options = StoreOptions.builder().filterKind(kind).bitsPerKey(10).blockCacheBytes(0)
                .memtableBytes(64L << 20).autoCompaction(false).build();
        try (Store store = Store.open(tmp.resolve(kind.cliName()), options)) {
            // Each flush writes a table covering the whole key range, so every lookup consults all five
            // (compaction is off so they stay in level 0).
            for (int t = 0; t < TABLES; t++) {
                for (int i = t; i < KEYS; i += TABLES) {
                    store.put(key("present", i), key("value", i));
                }
                store.flush();
            }
            StoreStats before = store.stats();
            assertEquals(TABLES, before.levels().get(0).files());
            assertTrue(before.filterBytes() > 0);
            for (int i = 0; i < ABSENT; i++) {
                assertEquals(null, store.get(absentKey(TABLES + i)), "absent");
            }
            StoreStats after = store.stats();
            long reads = after.dataBlockReads() - before.dataBlockReads();
            long falsePositives = after.filterFalsePositives() - before.filterFalsePositives();
            long negatives = after.filterNegatives() - before.filterNegatives();
            assertEquals(0, after.filterTruePositives() - before.filterTruePositives());
            assertEquals(falsePositives, reads, "every data-block read is a filter false positive");
            assertEquals((long) ABSENT * TABLES, negatives + falsePositives, "every table's filter was consulted");
            double measured = (double) falsePositives / (negatives + falsePositives);
            double configured = options.configuredFpr();
            assertTrue(Math.abs(measured - configured) <= 0.25 * configured,
                    "measured FPR " + measured + " vs configured " + configured);

            // Present keys: one true positive in the table that holds them.
            for (int i = 0; i < 1000; i++) {
                assertArrayEquals(key("value", i), store.get(key("present", i)));
            }
            assertTrue(store.stats().filterTruePositives() >= 1000);
        }
    }

    /** Sorts between two present keys, so every table's key range covers it. */
    private static byte[] absentKey(int i) {
        return String.format("present-%08d.5", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] key(String prefix, int i) {
        return String.format("%s-%08d", prefix, i).getBytes(StandardCharsets.UTF_8);
    }
}
