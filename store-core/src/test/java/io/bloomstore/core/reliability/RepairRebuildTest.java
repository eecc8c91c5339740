package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.RepairReport;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreDirs;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreRepair;
import io.bloomstore.core.StoreVerifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreRepair} rebuilds from every table and WAL segment that verifies, whatever the
 * MANIFEST says, and deletes nothing: a store copied while it ran (MANIFEST and CURRENT from before
 * a compaction, tables from after it), tables from two generations, no MANIFEST at all. Before the
 * rebuild, repair kept the stale MANIFEST's version and left the compaction's outputs for the next
 * open to delete: all 4,000 keys of the copied store were missing after it.
 */
class RepairRebuildTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(32 * 1024).blockSize(512)
            .targetFileBytes(32 * 1024).autoCompaction(false).build();
    private static final int KEYS = 4000;

    @TempDir
    Path root;

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int generation) {
        return ("value-" + i + "-g" + generation).getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> names(Path dir, Predicate<String> which) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(which).sorted().toList();
        }
    }

    private static boolean isTableFile(String n) {
        return n.endsWith(".sst") || n.endsWith(".filter");
    }

    /** A store whose every key is in tables, with {@code generation}'s values. */
    private Path written(int generation) throws IOException {
        Path dir = root.resolve("live");
        try (Store store = Store.open(dir, OPTIONS)) {
            // Two overlapping flushes (even keys, then odd ones), so a compaction rewrites them.
            for (int parity = 0; parity < 2; parity++) {
                for (int i = parity; i < KEYS; i += 2) {
                    store.put(key(i), value(i, generation));
                }
                store.flush();
            }
        }
        return dir;
    }

    private static void checkAll(Path dir, int generation) throws IOException {
        assertTrue(StoreVerifier.verify(dir).clean());
        try (Store store = Store.open(dir, OPTIONS)) {
            int missing = 0;
            for (int i = 0; i < KEYS; i++) {
                byte[] v = store.get(key(i));
                if (v == null) {
                    missing++;
                } else {
                    assertArrayEquals(value(i, generation), v, "key " + i);
                }
            }
            assertEquals(0, missing, "keys missing after repair");
        }
    }

    @Test
    void storeCopiedWhileACompactionRanKeepsEveryKey() throws IOException {
        Path live = written(0);
        Path copy = root.resolve("copy");
        // The copy takes MANIFEST and CURRENT first, then the compaction runs, then the tables.
        StoreDirs.copy(live, copy, n -> n.startsWith("MANIFEST") || n.equals("CURRENT"));
        try (Store store = Store.open(live, OPTIONS)) {
            store.compact();
        }
        // A running store deletes the compaction's inputs once no reader holds them.
        Store.open(live, OPTIONS).close();
        StoreDirs.copy(live, copy, n -> isTableFile(n) || n.endsWith(".log"));
        assertThrows(NoSuchFileException.class, () -> Store.open(copy, OPTIONS).close());
        List<String> before = names(copy, RepairRebuildTest::isTableFile);
        RepairReport r = StoreRepair.repair(copy);
        assertFalse(r.manifestReused(), r.toString());
        checkAll(copy, 0);
        // nothing deleted: every table file the copy had is still in the store or in lost/
        for (String n : before) {
            assertTrue(Files.exists(copy.resolve(n)) || Files.exists(copy.resolve("lost").resolve(n)), n);
        }
    }

    @Test
    void tablesOfTwoGenerationsNewestSequenceWins() throws IOException {
        Path live = written(0);
        Path old = root.resolve("old");
        StoreDirs.copy(live, old, RepairRebuildTest::isTableFile);
        try (Store store = Store.open(live, OPTIONS)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i, 1));
            }
            store.flush();
            store.compact();
        }
        // The first generation's tables come back beside the second's (their numbers are free now).
        for (String n : names(old, s -> true)) {
            if (!Files.exists(live.resolve(n))) {
                Files.copy(old.resolve(n), live.resolve(n));
            }
        }
        RepairReport r = StoreRepair.repair(live);
        assertFalse(r.manifestReused(), r.toString());
        assertTrue(r.nothingLost(), r.toString());
        checkAll(live, 1);
    }

    @Test
    void noManifestAtAll() throws IOException {
        Path live = written(0);
        for (String n : names(live, n -> n.startsWith("MANIFEST") || n.equals("CURRENT"))) {
            Files.delete(live.resolve(n));
        }
        RepairReport r = StoreRepair.repair(live);
        assertFalse(r.manifestReused());
        checkAll(live, 0);
    }

    @Test
    void aHealthyStoreKeepsItsLevelsAndSetsItsOldManifestAside() throws IOException {
        Path live = written(0);
        List<String> manifests = names(live, n -> n.startsWith("MANIFEST"));
        RepairReport r = StoreRepair.repair(live);
        assertTrue(r.manifestReused(), r.toString());
        assertTrue(r.nothingLost(), r.toString());
        for (String m : manifests) {
            assertTrue(r.archivedFiles().contains(m), r.toString());
            assertTrue(Files.exists(live.resolve("lost").resolve(m)), m);
        }
        checkAll(live, 0);
    }
}
