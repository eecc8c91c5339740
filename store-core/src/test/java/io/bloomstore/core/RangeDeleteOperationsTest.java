package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range deletion through the operations on a whole store: ingest (an ingested table is neither
 * hidden by an older tombstone nor resurrects what it deleted), checkpoints, backups, read-only
 * opens, verify and repair (with the MANIFEST intact, and damaged after the edit holding the
 * tombstone) — with tombstones both in the MANIFEST (flushed) and in the WAL (not yet flushed).
 */
class RangeDeleteOperationsTest {
    @TempDir
    Path tmp;

    private static final StoreOptions OPTIONS = StoreOptions.builder().autoCompaction(false).build();

    private static byte[] key(int i) {
        return String.format("k%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("v" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** Keys 0..99; [10, 30) deleted and flushed into the MANIFEST; [50, 60) deleted and left in the WAL. */
    private static void fill(Store s) throws IOException {
        for (int i = 0; i < 100; i++) {
            s.put(key(i), value(i));
        }
        s.flush();
        s.deleteRange(key(10), key(30));
        s.flush();
        s.put(key(200), value(200));
        s.flush();
        s.deleteRange(key(50), key(60), WriteOptions.SYNC);
    }

    private static void check(Store s, String where) throws IOException {
        for (int i = 0; i < 100; i++) {
            boolean deleted = i >= 10 && i < 30 || i >= 50 && i < 60;
            if (deleted) {
                assertNull(s.get(key(i)), where + ": " + i + " is deleted");
            } else {
                assertArrayEquals(value(i), s.get(key(i)), where + ": " + i);
            }
        }
        int n = 0;
        try (StoreIterator it = s.iterator(null, key(100))) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        assertEquals(70, n, where + ": keys left in [0, 100)");
    }

    @Test
    void checkpointBackupReadOnlyAndVerify() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store s = Store.open(dir, OPTIONS)) {
            fill(s);
            check(s, "live");
            s.checkpoint(tmp.resolve("checkpoint"));
            StoreBackup.create(s, tmp.resolve("backups"));
            assertEquals(2, s.stats().rangeTombstones());
        }
        VerifyReport report = StoreVerifier.verify(dir);
        assertTrue(report.clean(), report.errors().toString());
        try (Store s = Store.openReadOnly(dir)) {
            check(s, "read-only");
        }
        try (Store s = Store.open(tmp.resolve("checkpoint"), OPTIONS)) {
            check(s, "checkpoint");
        }
        StoreBackup.restore(tmp.resolve("backups"), -1, tmp.resolve("restored"));
        try (Store s = Store.open(tmp.resolve("restored"), OPTIONS)) {
            check(s, "restored backup");
        }
    }

    @Test
    void repairKeepsTombstones() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store s = Store.open(dir, OPTIONS)) {
            fill(s);
        }
        RepairReport report = StoreRepair.repair(dir);
        assertTrue(report.manifestReused(), report.toString());
        try (Store s = Store.open(dir, OPTIONS)) {
            check(s, "repaired");
        }
    }

    @Test
    void repairOfADamagedManifestMergesUnderTheTombstonesItCouldRead() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store s = Store.open(dir, OPTIONS)) {
            fill(s);
        }
        Path manifest;
        try (Stream<Path> files = Files.list(dir)) {
            manifest = files.filter(p -> p.getFileName().toString().startsWith("MANIFEST-")).findFirst().orElseThrow();
        }
        // The last edit (the flush of key 200) is damaged; the one holding [10, 30) reads.
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[bytes.length - 3] ^= 0x5A;
        Files.write(manifest, bytes);
        RepairReport report = StoreRepair.repair(dir);
        assertFalse(report.manifestReused(), report.toString());
        try (Store s = Store.open(dir, OPTIONS)) {
            check(s, "repaired after MANIFEST damage");
            assertArrayEquals(value(200), s.get(key(200)));
            assertEquals(0, s.stats().rangeTombstones(), "the merge applied them");
        }
    }

    @Test
    void ingestedTablesAreNewerThanTombstones() throws IOException {
        Path dir = tmp.resolve("store");
        Path inRange = tmp.resolve("in.sst");
        Path outside = tmp.resolve("out.sst");
        try (TableWriter w = TableWriter.create(inRange)) {
            w.put(key(15), "ingested".getBytes(StandardCharsets.UTF_8));
            w.put(key(55), "ingested".getBytes(StandardCharsets.UTF_8));
            w.finish();
        }
        try (TableWriter w = TableWriter.create(outside)) {
            w.put(key(500), "far".getBytes(StandardCharsets.UTF_8));
            w.finish();
        }
        try (Store s = Store.open(dir, OPTIONS)) {
            fill(s);
            IngestReport r = s.ingest(List.of(inRange));
            assertEquals(List.of(0), r.levels(), "under a tombstone: rewritten above it into level 0");
            assertArrayEquals("ingested".getBytes(StandardCharsets.UTF_8), s.get(key(15)));
            assertArrayEquals("ingested".getBytes(StandardCharsets.UTF_8), s.get(key(55)));
            assertNull(s.get(key(16)), "the rest of the range stays deleted");
            assertNull(s.get(key(56)));
            IngestReport far = s.ingest(List.of(outside));
            assertEquals(List.of(6), far.levels(), "no tombstone or table there: linked as it is");
            s.compact();
            assertArrayEquals("ingested".getBytes(StandardCharsets.UTF_8), s.get(key(15)));
            assertArrayEquals("far".getBytes(StandardCharsets.UTF_8), s.get(key(500)));
            assertNull(s.get(key(16)));
        }
    }
}
