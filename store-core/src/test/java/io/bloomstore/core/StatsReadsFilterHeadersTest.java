package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Store#stats()} reports every table's filter figures (expected false-positive rate, key,
 * prefix and range sections, the prefix extractor) from the sidecars' headers: on a store just
 * opened it maps or loads no filter, and its figures are the ones it reports once lookups have
 * loaded every filter.
 */
class StatsReadsFilterHeadersTest {
    private static final int TABLES = 4;
    private static final int KEYS_PER_TABLE = 2_000;

    @TempDir
    Path dir;

    @Test
    void statsOnAFreshOpenLoadsNoFilterAndAgreesWithLoadedFilters() throws IOException {
        StoreOptions options = StoreOptions.builder().autoCompaction(false).prefixExtractor(PrefixExtractor.fixed(4))
                .rangeFilter(RangeFilterOptions.of(12)).build();
        try (Store store = Store.open(dir, options)) {
            for (int t = 0; t < TABLES; t++) {
                for (int i = 0; i < KEYS_PER_TABLE; i++) {
                    store.put(key(t, i), ("v" + i).getBytes(StandardCharsets.US_ASCII));
                }
                store.flush();
            }
        }
        try (Store store = Store.open(dir, options)) {
            StoreStats described = store.stats();
            assertEquals(0, described.filterBytes(), "stats mapped or loaded a filter");
            assertEquals(TABLES, described.tables().size());
            for (StoreStats.TableFilterStats t : described.tables()) {
                assertTrue(t.keyFilterBytes() > 0 && t.prefixFilterBytes() > 0 && t.rangeFilterBytes() > 0, t.toString());
                assertTrue(t.keyFilterBytes() + t.prefixFilterBytes() + t.rangeFilterBytes() <= t.sidecarBytes());
                assertEquals(PrefixExtractor.fixed(4).toString(), t.prefixExtractor());
            }
            // Every table's range holds these absent keys: each lookup loads that table's filters.
            for (int t = 0; t < TABLES; t++) {
                assertNull(store.get(key(t, KEYS_PER_TABLE / 2, "x")));
            }
            StoreStats loaded = store.stats();
            assertTrue(loaded.filterBytes() > 0, "the lookups loaded the filters");
            assertEquals(described.tables(), loaded.tables());
            assertEquals(levelFprs(described), levelFprs(loaded));
            assertTrue(levelFprs(described).stream().anyMatch(f -> f > 0 && f < 0.05), levelFprs(described).toString());
        }
    }

    private static List<Double> levelFprs(StoreStats s) {
        return s.levels().stream().map(StoreStats.LevelStats::expectedFpr).toList();
    }

    /** Table {@code t}'s keys share nothing with another table's range: its own 4-byte prefix. */
    private static byte[] key(int t, int i) {
        return key(t, i, "");
    }

    private static byte[] key(int t, int i, String suffix) {
        return String.format("t%03d-%08d%s", t, i, suffix).getBytes(StandardCharsets.US_ASCII);
    }
}
