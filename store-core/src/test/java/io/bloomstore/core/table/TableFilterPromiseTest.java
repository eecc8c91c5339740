package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.stats.StoreCounters;

/**
 * The promise the filters exist for, at table level: lookups of absent keys read no data block
 * except on a filter false positive, and the false positives match the filter's rate.
 *
 * <p>Keys are deterministic (present: even numbers, absent: odd numbers, all inside the table's
 * key range so the range check cannot answer for the filter); the filter hash is fixed (XXH3,
 * seed 0), so the counts are reproducible and the test has no random seed of its own.
 */
class TableFilterPromiseTest {
    private static final int KEYS = 20_000;
    /** Odd keys 1, 3, ..., all below the largest present key. */
    private static final int QUERIES = KEYS - 1;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private TableReader write(FileSystem fs, TableOptions opts, StoreCounters counters) throws Exception {
        TableBuilder b = new TableBuilder(fs, dir, 1, opts);
        for (int i = 0; i < KEYS; i++) {
            b.add(key(2 * i), i + 1, ValueType.VALUE, ("value" + i).getBytes(StandardCharsets.UTF_8));
        }
        b.finish();
        return TableReader.open(fs, dir, 1, opts, BlockCache.disabled(), counters);
    }

    @ParameterizedTest
    @EnumSource(value = FilterKind.class, names = {"BLOOM", "BLOCKED_BLOOM"})
    void absentKeysReadDataBlocksOnlyOnFalsePositivesAtTheFiltersRate(FilterKind kind) throws Exception {
        StoreCounters c = new StoreCounters();
        try (TableReader t = write(LocalFileSystem.INSTANCE, TableOptions.defaults().withFilter(kind, 10), c)) {
            for (int i = 0; i < QUERIES; i++) {
                assertNull(t.get(key(2 * i + 1), Long.MAX_VALUE));
            }
            long fp = c.filterFalsePositives();
            assertEquals(QUERIES, c.filterNegatives().sum() + c.filterPositives().sum());
            assertEquals(0, c.filterTruePositives().sum());
            assertEquals(fp, c.dataBlockReads().sum(), "a data block is read exactly for each false positive");

            // Binomial tolerance: the count of false positives lies within 5 standard deviations of
            // QUERIES · p, with p the rate the filter computes for itself (for blocked Bloom an
            // allowance of 1.5 · p, since blocking raises the rate above the standard formula).
            double p = t.filterExpectedFpr();
            double mean = QUERIES * p;
            double sigma = Math.sqrt(QUERIES * p * (1 - p));
            double upper = (kind == FilterKind.BLOCKED_BLOOM ? 1.5 * mean : mean) + 5 * sigma;
            double lower = mean - 5 * sigma;
            System.out.printf("%s: %d false positives in %d absent lookups (measured %.4f, expected %.4f)%n",
                    kind, fp, QUERIES, c.measuredFpr(), p);
            assertTrue(fp >= lower && fp <= upper, kind + ": " + fp + " false positives outside [" + lower + ", "
                    + upper + "]");

            long readsBefore = c.dataBlockReads().sum();
            for (int i = 0; i < KEYS; i += 7) {
                assertNotNull(t.get(key(2 * i), Long.MAX_VALUE));
            }
            long hits = (KEYS + 6) / 7;
            assertEquals(hits, c.filterTruePositives().sum(), "no false negatives");
            assertEquals(hits, c.dataBlockReads().sum() - readsBefore, "one data block read per present key");
        }
    }

    @Test
    void withoutFilterEveryLookupInRangeReadsOneBlock() throws Exception {
        StoreCounters c = new StoreCounters();
        try (TableReader t = write(LocalFileSystem.INSTANCE, TableOptions.defaults().withoutFilter(), c)) {
            for (int i = 0; i < 1000; i++) {
                assertNull(t.get(key(2 * i + 1), Long.MAX_VALUE));
            }
            assertNull(t.get("zzz".getBytes(StandardCharsets.UTF_8), Long.MAX_VALUE));
            assertEquals(1000, c.dataBlockReads().sum());
            assertEquals(0, c.filterNegatives().sum() + c.filterPositives().sum() + c.filterTruePositives().sum());
        }
    }
}
