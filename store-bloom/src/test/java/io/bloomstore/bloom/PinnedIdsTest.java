package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The ids of {@link FilterKind} and {@link HashStrategy} are written into every filter file:
 * this test pins them so a constant can never be renumbered or reordered. Adding a constant
 * means adding it here with a new id.
 */
class PinnedIdsTest {

    @Test
    void filterKindIds() {
        Map<FilterKind, Integer> pinned = new LinkedHashMap<>();
        pinned.put(FilterKind.BLOOM, 1);
        pinned.put(FilterKind.BLOCKED_BLOOM, 2);
        pinned.put(FilterKind.COUNTING_BLOOM, 3);
        pinned.put(FilterKind.SCALABLE_BLOOM, 4);
        pinned.put(FilterKind.CUCKOO, 5);
        pinned.put(FilterKind.BINARY_FUSE, 6);
        pinned.put(FilterKind.RANGE, 7);
        pinned.put(FilterKind.ROSETTA, 8);
        pinned.put(FilterKind.RIBBON, 9);
        for (FilterKind kind : FilterKind.values()) {
            assertEquals(pinned.get(kind), kind.id(), kind + " must keep its on-disk id (add new kinds to this test)");
            assertEquals(kind, FilterKind.byId(kind.id()));
            assertEquals(kind, FilterKind.byCliName(kind.cliName()));
        }
    }

    @Test
    void hashStrategyIds() {
        Map<HashStrategy, Integer> pinned = new LinkedHashMap<>();
        pinned.put(HashStrategy.CUSTOM, 0);
        pinned.put(HashStrategy.XXH3_64, 1);
        pinned.put(HashStrategy.XXH64, 2);
        assertEquals(pinned.size(), HashStrategy.values().length, "add new strategies to this test");
        for (HashStrategy s : HashStrategy.values()) {
            assertEquals(pinned.get(s), s.id(), s + " must keep its on-disk id");
            assertEquals(s, HashStrategy.byId(s.id()));
        }
    }

    @Test
    void builtInHashesAreStable() {
        // Bits on disk were set by these hashes: a library upgrade must not change them.
        byte[] key = "bloomstore".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(2662686784096953876L, Filters.hash(key), "XXH3-64, seed 0");
        assertEquals(-3807473421942757879L, HashStrategy.XXH64.function(7).hashBytes(key), "xxHash64, seed 7");
    }
}
