package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;

/**
 * The short writing commands ({@code put}, {@code delete}, {@code flush}) start no compaction: the
 * command's close would abandon it. A store whose level 0 is at the compaction trigger keeps its
 * level 0 through them, answers alike, and {@code compact} then merges it.
 */
class ShortWritesCompactionTest {
    @TempDir
    Path tmp;

    @Test
    void shortWritesLeaveLevelZeroToALaterCompaction() throws IOException {
        Path dir = tmp.resolve("db");
        StoreOptions fourTables = StoreOptions.builder().autoCompaction(false).build();
        try (Store store = Store.open(dir, fourTables)) {
            for (int t = 0; t < fourTables.l0CompactionTrigger(); t++) {
                store.put(bytes("k" + t), bytes("v" + t));
                store.flush();
            }
        }
        int trigger = fourTables.l0CompactionTrigger();
        assertEquals(trigger, levelZeroTables(dir));

        assertEquals(ExitCodes.OK, CliRunner.run("--data", dir.toString(), "put", "k9", "v9").exitCode());
        assertEquals(ExitCodes.OK, CliRunner.run("--data", dir.toString(), "delete", "k0").exitCode());
        assertEquals(ExitCodes.OK, CliRunner.run("--data", dir.toString(), "flush").exitCode());
        assertEquals(trigger + 1, levelZeroTables(dir), "the flush's table joined level 0; nothing was compacted");
        String stats = CliRunner.run("--data", dir.toString(), "stats").out();
        assertTrue(stats.contains("level 0 holds " + (trigger + 1) + " tables (compaction trigger " + trigger
                + "): `bloomstore compact` merges them"), stats);
        assertEquals("v9\n", CliRunner.run("--data", dir.toString(), "get", "k9").out());
        assertEquals(ExitCodes.NOT_FOUND, CliRunner.run("--data", dir.toString(), "get", "k0").exitCode());

        assertEquals(ExitCodes.OK, CliRunner.run("--data", dir.toString(), "compact").exitCode());
        assertEquals(0, levelZeroTables(dir), "compact merges level 0");
        assertFalse(CliRunner.run("--data", dir.toString(), "stats").out().contains("level 0 holds"),
                "no hint once level 0 is below the trigger");
        try (Store store = Store.openReadOnly(dir)) {
            assertArrayEquals(bytes("v1"), store.get(bytes("k1")));
            assertArrayEquals(bytes("v9"), store.get(bytes("k9")));
            assertFalse(store.get(bytes("k0")) != null, "the delete survived the compaction");
        }
    }

    private static int levelZeroTables(Path dir) throws IOException {
        try (Store store = Store.openReadOnly(dir)) {
            return store.stats().levels().get(0).files();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
