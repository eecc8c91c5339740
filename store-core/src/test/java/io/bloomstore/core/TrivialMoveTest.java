package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trivial moves: tables whose range overlaps nothing one level down move there whole, as in
 * LevelDB — keys written in ascending order reach the deep levels without a byte of compaction
 * I/O, and stay readable, also after reopening — while a move that would leave a level with
 * another filter than the policy chooses there (a weaker one, or one the policy skips) is refused:
 * the tables are merged and get the chosen filter. Deterministic.
 */
class TrivialMoveTest {
    private static final int KEYS = 4000;

    @TempDir
    Path tmp;

    private static StoreOptions.Builder small() {
        return StoreOptions.builder().memtableBytes(16 * 1024).compression(Compression.NONE).blockCacheBytes(1 << 20)
                .baseLevelBytes(32 * 1024).targetFileBytes(16 * 1024).levelSizeRatio(2).l0Triggers(2, 20, 36);
    }

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }

    private static void fillAscending(Store store) throws IOException {
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i));
        }
        store.flush();
        store.awaitCompactions();
    }

    private static int deepTables(StoreStats s) {
        return s.levels().stream().filter(l -> l.level() >= 2).mapToInt(StoreStats.LevelStats::files).sum();
    }

    @Test
    void ascendingKeysMoveDownWithoutCompactionIo() throws IOException {
        Path dir = tmp.resolve("seq");
        try (Store store = Store.open(dir, small().build())) {
            fillAscending(store);
            StoreStats s = store.stats();
            System.out.printf("ascending fill: %d trivial moves, %d compactions, %d bytes compacted, levels %s%n",
                    s.trivialMoves(), s.compactions(), s.compactionBytesWritten(),
                    s.levels().stream().map(StoreStats.LevelStats::files).toList());
            assertTrue(s.trivialMoves() > 0, "tables moved down whole");
            assertEquals(0, s.compactions(), "nothing overlapped, so nothing was merged");
            assertEquals(0, s.compactionBytesWritten());
            assertTrue(deepTables(s) > 0, "moves reached level 2 and below");
        }
        try (Store store = Store.open(dir, small().build())) {
            for (int i = 0; i < KEYS; i += 7) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i + " after reopening");
            }
            int n = 0;
            try (StoreIterator it = store.iterator(null, null)) {
                while (it.hasNext()) {
                    assertArrayEquals(key(n), it.next().key());
                    n++;
                }
            }
            assertEquals(KEYS, n, "a scan sees every key once, in order");
        }
    }

    @Test
    void aTableWithoutTheChosenFilterIsMergedNotMoved() throws IOException {
        // Level 0 without filters, every deeper level with Bloom filters: level-0 tables must not move.
        FilterPolicy policy = FilterPolicy.perLevel(List.of(FilterChoice.none("level 0 unfiltered"),
                FilterChoice.filter(FilterKind.BLOOM, 10, "deeper levels filtered")));
        try (Store store = Store.open(tmp.resolve("policy"), small().filterPolicy(policy).build())) {
            fillAscending(store);
            StoreStats s = store.stats();
            assertTrue(s.compactions() > 0, "level-0 tables merged into level 1 to get their filters");
            for (StoreStats.LevelStats l : s.levels()) {
                if (l.level() >= 1 && l.files() > 0) {
                    assertTrue(l.filterFileBytes() > 0 && l.expectedFpr() < 0.02,
                            "level " + l.level() + " tables carry the chosen filter: " + l);
                }
            }
            for (int i = 0; i < KEYS; i += 13) {
                assertArrayEquals(value(i), store.get(key(i)));
            }
        }
    }

    @Test
    void noTableMovesWithAFilterThePolicySkips() throws IOException {
        // Filters at level 0 only; deeper levels skip them, so level-0 tables are merged into
        // unfiltered ones instead of moving down with their filters.
        FilterChoice bloom = FilterChoice.filter(FilterKind.BLOOM, 10, "level 0");
        FilterPolicy policy = FilterPolicy.perLevel(List.of(bloom, bloom.skip("deeper levels skip filters")));
        try (Store store = Store.open(tmp.resolve("skip"), small().filterPolicy(policy).build())) {
            fillAscending(store);
            StoreStats s = store.stats();
            assertTrue(s.compactions() > 0);
            for (StoreStats.LevelStats l : s.levels()) {
                if (l.level() >= 1 && l.files() > 0) {
                    assertEquals(0, l.filterFileBytes(), "level " + l.level() + " holds no filter: " + l);
                    assertTrue(l.filterBytesSaved() > 0, "the skipped filter's bytes are saved: " + l);
                }
            }
            for (int i = 0; i < KEYS; i += 13) {
                assertArrayEquals(value(i), store.get(key(i)));
            }
        }
    }
}
