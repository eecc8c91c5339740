package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.RepairReport;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreDirs;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreRepair;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.WriteOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreRepair} on a store with tables on several levels, filter sidecars, unflushed WAL
 * segments and COUNTERS, after damage to each kind of file: a table's data block, index and
 * footer, a filter sidecar, a WAL segment, the MANIFEST, CURRENT missing, COUNTERS. Every time the
 * repaired store opens and verifies clean, every key holds its latest value unless the report says
 * its table or WAL record was lost (then it holds a value once written to it, or nothing), and the
 * damaged file is in {@code lost/}.
 */
class StoreRepairTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(16 * 1024).blockSize(512)
            .targetFileBytes(16 * 1024).build();

    @TempDir
    static Path pristineRoot;
    static Path pristine;
    /** Every value each key ever had. */
    static final Map<String, Set<String>> HISTORY = new HashMap<>();
    static final Map<String, String> LATEST = new HashMap<>();
    /** Keys written only to the WAL (after the last flush). */
    static final List<String> WAL_KEYS = new ArrayList<>();

    @TempDir
    Path work;

    @BeforeAll
    static void buildStore() throws IOException {
        pristine = pristineRoot.resolve("store");
        // Values of random letters, so compression leaves the tables several blocks and files long.
        java.util.Random rnd = new java.util.Random(11);
        try (Store store = Store.open(pristine, OPTIONS)) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 600; i++) {
                    StringBuilder filler = new StringBuilder();
                    for (int c = 40 + rnd.nextInt(80); c > 0; c--) {
                        filler.append((char) ('a' + rnd.nextInt(26)));
                    }
                    put(store, String.format("k%05d", (i * 7 + round * 13) % 900), "r" + round + "-" + i + "-"
                            + filler, false);
                }
                store.flush();
                if (round == 1) {
                    store.compact();
                }
            }
            for (int i = 0; i < 40; i++) {
                String key = String.format("w%05d", i);
                put(store, key, "wal-" + i + "-" + "w".repeat(200), true);
                WAL_KEYS.add(key);
            }
            // A compaction cancelled by close leaves its partial outputs for the next open to delete:
            // let the compactions finish, so that someTable's choice is the whole story.
            store.awaitCompactions();
        }
    }

    private static void put(Store store, String key, String value, boolean sync) throws IOException {
        store.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8),
                sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        HISTORY.computeIfAbsent(key, k -> new HashSet<>()).add(value);
        LATEST.put(key, value);
    }

    private Path copy() throws IOException {
        return StoreDirs.copy(pristine, work.resolve("store"));
    }

    private static List<Path> files(Path dir, Predicate<String> name) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> name.test(p.getFileName().toString())).sorted().toList();
        }
    }

    private static void flip(Path file, long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int at = (int) (offset < 0 ? bytes.length + offset : offset);
        bytes[at] ^= 0x5A;
        Files.write(file, bytes);
    }

    /** Repairs, then checks the promises; returns the report. */
    private static RepairReport repairAndCheck(Path dir, String damaged) throws IOException {
        RepairReport report = StoreRepair.repair(dir);
        System.out.println("StoreRepairTest " + damaged + ": " + report);
        VerifyReport verify = StoreVerifier.verify(dir);
        assertTrue(verify.clean(), damaged + ": " + verify.errors());
        boolean keysMayBeMissing = report.keysLost() > 0 || report.tablesOfUnknownSize() > 0;
        int latest = 0;
        try (Store store = Store.open(dir, OPTIONS)) {
            for (Map.Entry<String, String> e : LATEST.entrySet()) {
                byte[] v = store.get(e.getKey().getBytes(StandardCharsets.UTF_8));
                String got = v == null ? null : new String(v, StandardCharsets.UTF_8);
                boolean walKey = WAL_KEYS.contains(e.getKey());
                if (walKey ? report.walBytesDropped() == 0 : !keysMayBeMissing) {
                    assertEquals(e.getValue(), got, damaged + ": key " + e.getKey());
                } else {
                    assertTrue(got == null || HISTORY.get(e.getKey()).contains(got),
                            damaged + ": key " + e.getKey() + " holds a value never written: " + got);
                }
                latest += e.getValue().equals(got) ? 1 : 0;
            }
            store.put("after".getBytes(StandardCharsets.UTF_8), "repair".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals("repair".getBytes(StandardCharsets.UTF_8), store.get("after".getBytes(StandardCharsets.UTF_8)));
        }
        System.out.println("StoreRepairTest " + damaged + ": " + latest + " of " + LATEST.size()
                + " keys hold their latest value");
        return report;
    }

    /**
     * A table of the store's current version. The directory may also hold tables a compaction
     * replaced, or a cancelled compaction's partial outputs, which the next writable open deletes:
     * damage to those would test nothing.
     */
    private Path someTable(Path dir) throws IOException {
        List<Long> live = new ArrayList<>();
        try (Store s = Store.openReadOnly(dir, OPTIONS)) {
            s.stats().tables().forEach(t -> live.add(t.fileNumber()));
        }
        Collections.sort(live);
        assertTrue(live.size() >= 3, "tables: " + live);
        return dir.resolve(String.format("%06d.sst", live.get(live.size() / 2)));
    }

    @Test
    void damagedDataBlock() throws IOException {
        Path dir = copy();
        Path table = someTable(dir);
        flip(table, 40);
        RepairReport r = repairAndCheck(dir, "data block");
        assertTrue(r.lostFiles().contains(table.getFileName().toString()), r.toString());
        assertTrue(r.keysLost() > 0);
        assertTrue(Files.exists(dir.resolve("lost").resolve(table.getFileName())));
    }

    @Test
    void damagedIndexBlock() throws IOException {
        Path dir = copy();
        Path table = someTable(dir);
        // The index block ends just before the 48-byte footer.
        flip(table, -48 - 6);
        RepairReport r = repairAndCheck(dir, "index block");
        assertTrue(r.lostFiles().contains(table.getFileName().toString()), r.toString());
    }

    @Test
    void damagedFooter() throws IOException {
        Path dir = copy();
        Path table = someTable(dir);
        flip(table, -1);
        // Tables are opened on first use: the store opens, and the first use of the damaged table
        // (a scan of everything opens every table) reports it as corruption naming the file.
        try (Store s = Store.openReadOnly(dir, OPTIONS)) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
                try (StoreIterator it = s.iterator(null, null)) {
                    while (it.hasNext()) {
                        it.next();
                    }
                }
            });
            assertInstanceOf(CorruptionException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains(table.getFileName().toString()), e.getCause().getMessage());
        }
        RepairReport r = repairAndCheck(dir, "footer");
        assertTrue(r.lostFiles().contains(table.getFileName().toString()), r.toString());
        assertEquals(1, r.tablesOfUnknownSize(), "the footer gone, the table's size is unknown");
    }

    /**
     * A cancelled compaction's partial output (a table file with no footer, not in the MANIFEST)
     * holds nothing the store lacks: repair sets it aside in {@code lost/} and reports nothing lost.
     */
    @Test
    void unfinishedCompactionOutputIsNoLoss() throws IOException {
        Path dir = copy();
        List<Path> tables = files(dir, n -> n.endsWith(".sst"));
        long highest = Long.parseLong(tables.get(tables.size() - 1).getFileName().toString().replace(".sst", ""));
        long unused = highest - 1;
        while (Files.exists(dir.resolve(String.format("%06d.sst", unused)))) {
            unused--;
        }
        Path partial = dir.resolve(String.format("%06d.sst", unused));
        Files.write(partial, "a table's first blocks, no footer yet".repeat(100).getBytes(StandardCharsets.UTF_8));
        RepairReport r = repairAndCheck(dir, "unfinished compaction output");
        assertTrue(r.nothingLost(), r.toString());
        assertTrue(r.manifestReused());
        assertFalse(r.keptTables().contains(partial.getFileName().toString()), r.toString());
        assertTrue(r.archivedFiles().contains(partial.getFileName().toString()), r.toString());
        assertTrue(Files.exists(dir.resolve("lost").resolve(partial.getFileName())), "set aside, not deleted");
    }

    @Test
    void damagedSidecarIsRebuiltFromItsTable() throws IOException {
        Path dir = copy();
        Path sidecar = files(dir, n -> n.endsWith(".filter")).get(0);
        flip(sidecar, -10);
        RepairReport r = repairAndCheck(dir, "filter sidecar");
        String table = sidecar.getFileName().toString().replace(".filter", ".sst");
        assertTrue(r.rebuiltTables().contains(table), r.toString());
        assertEquals(List.of(sidecar.getFileName().toString()), r.lostFiles());
        assertEquals(0, r.keysLost());
    }

    @Test
    void missingSidecarIsRebuilt() throws IOException {
        Path dir = copy();
        Path sidecar = files(dir, n -> n.endsWith(".filter")).get(0);
        Files.delete(sidecar);
        RepairReport r = repairAndCheck(dir, "missing sidecar");
        // Checked by the report: the reopened store's compactions may have replaced the table since.
        assertTrue(r.rebuiltTables().contains(sidecar.getFileName().toString().replace(".filter", ".sst")),
                r.toString());
        assertEquals(0, r.keysLost());
    }

    @Test
    void damagedWalKeepsTheRecordsBeforeTheDamage() throws IOException {
        Path dir = copy();
        List<Path> wals = files(dir, n -> n.endsWith(".log"));
        Path wal = wals.get(wals.size() - 1);
        flip(wal, Files.size(wal) / 2);
        assertThrows(IOException.class, () -> Store.open(dir, OPTIONS).close(), "the store refuses to open");
        RepairReport r = repairAndCheck(dir, "WAL");
        assertTrue(r.walEntriesSalvaged() > 0 && r.walBytesDropped() > 0, r.toString());
        assertTrue(r.lostFiles().contains(wal.getFileName().toString()));
    }

    @Test
    void damagedManifestMergesEveryTable() throws IOException {
        Path dir = copy();
        Path manifest = files(dir, n -> n.startsWith("MANIFEST-")).get(0);
        flip(manifest, 20);
        assertThrows(IOException.class, () -> Store.open(dir, OPTIONS).close(), "the store refuses to open");
        RepairReport r = repairAndCheck(dir, "MANIFEST");
        assertFalse(r.manifestReused());
        assertEquals(0, r.keysLost());
        assertTrue(r.lostFiles().contains(manifest.getFileName().toString()));
    }

    @Test
    void missingCurrentUsesTheNewestManifest() throws IOException {
        Path dir = copy();
        Files.delete(dir.resolve("CURRENT"));
        RepairReport r = repairAndCheck(dir, "CURRENT missing");
        assertTrue(r.manifestReused());
        assertTrue(r.nothingLost(), r.toString());
    }

    @Test
    void damagedCountersAreSetAside() throws IOException {
        Path dir = copy();
        flip(dir.resolve("COUNTERS"), 8);
        RepairReport r = repairAndCheck(dir, "COUNTERS");
        assertEquals(List.of("COUNTERS"), r.lostFiles());
    }

    @Test
    void anOpenStoreIsRefused() throws IOException {
        Path dir = copy();
        try (Store store = Store.open(dir, OPTIONS)) {
            assertThrows(io.bloomstore.core.LockedException.class, () -> StoreRepair.repair(dir));
        }
    }
}
