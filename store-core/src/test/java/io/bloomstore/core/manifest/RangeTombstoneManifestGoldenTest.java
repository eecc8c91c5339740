package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the MANIFEST fields of range tombstones (tag 6 adds one: start, end, sequence; tag 7 removes
 * one by its sequence): {@code testdata/golden/manifest/range-tombstones/MANIFEST-000001} was written
 * by {@link #write} and must recover to the same tombstones and be byte-identical to what this build
 * writes. Regenerate with {@code -Dbloomstore.regenerateGolden=true} after a deliberate format change
 * (documented in docs/format/manifest.md).
 */
class RangeTombstoneManifestGoldenTest {
    static final Path GOLDEN_DIR = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden/manifest/range-tombstones");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<VersionEdit> edits() {
        FileMetaData t5 = new FileMetaData(5, 4096, 1200, b("apple"), b("melon"), 100, 1, 100);
        return List.of(
                new VersionEdit().setLogNumber(0).setNextFileNumber(2).setLastSequence(0),
                new VersionEdit().setLogNumber(6).setNextFileNumber(8).setLastSequence(102).addFile(0, t5)
                        .addRangeTombstone(new RangeTombstone(b("b"), b("d"), 101))
                        .addRangeTombstone(new RangeTombstone(b("c"), b("f"), 102)),
                new VersionEdit().setNextFileNumber(9).deleteFile(0, 5).deleteRangeTombstone(101));
    }

    static byte[] write() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path path = Path.of("/g/MANIFEST-000001");
        fs.createDirectories(path.getParent());
        try (LogWriter w = new LogWriter(fs.create(path), LogFormat.MANIFEST_MAGIC)) {
            for (VersionEdit e : edits()) {
                w.addRecord(e.encode());
            }
        }
        return fs.contents(path);
    }

    @Test
    void tombstoneFieldsArePinned() {
        byte[] add = new VersionEdit().addRangeTombstone(new RangeTombstone(b("b"), b("d"), 300)).encode();
        // tag 6, start "b", end "d", sequence 300 (varint ac 02)
        assertEquals("06" + "0162" + "0164" + "ac02", HexFormat.of().formatHex(add));
        assertEquals("07" + "ac02", HexFormat.of().formatHex(new VersionEdit().deleteRangeTombstone(300).encode()));
    }

    @Test
    void goldenManifestRecoversTheTombstones() throws IOException {
        byte[] expected = write();
        Path manifest = GOLDEN_DIR.resolve("MANIFEST-000001");
        if (Boolean.getBoolean("bloomstore.regenerateGolden")) {
            Files.createDirectories(GOLDEN_DIR);
            Files.write(manifest, expected);
            Files.writeString(GOLDEN_DIR.resolve("CURRENT"), "MANIFEST-000001\n");
        }
        assertTrue(Files.exists(manifest), manifest + " missing; run with -Dbloomstore.regenerateGolden=true");
        byte[] golden = Files.readAllBytes(manifest);
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/r");
        fs.createDirectories(dir);
        fs.setContents(dir.resolve("MANIFEST-000001"), golden);
        fs.setContents(dir.resolve("CURRENT"), Files.readAllBytes(GOLDEN_DIR.resolve("CURRENT")));
        try (VersionSet vs = VersionSet.recover(fs, dir)) {
            Version v = vs.current();
            assertEquals(List.of(new RangeTombstone(b("c"), b("f"), 102)), v.rangeTombstones().tombstones());
            assertTrue(v.allFiles().isEmpty());
            // The MANIFEST recovery writes holds the tombstone in its full-state edit.
        }
        try (VersionSet vs = VersionSet.recover(fs, dir)) {
            assertEquals(1, vs.current().rangeTombstones().size());
        }
        assertArrayEquals(expected, golden, "this build writes range tombstones differently from the golden file");
    }

    @Test
    void removingATombstoneThatIsNotLiveIsRefused() {
        Version v = Version.empty();
        assertNotNull(v.check(new VersionEdit().deleteRangeTombstone(7)));
        Version w = v.apply(new VersionEdit().addRangeTombstone(new RangeTombstone(b("a"), b("b"), 7)));
        assertNotNull(w.check(new VersionEdit().addRangeTombstone(new RangeTombstone(b("a"), b("c"), 7))));
        assertEquals(null, w.check(new VersionEdit().deleteRangeTombstone(7)));
    }

    @Test
    void tombstoneWithStartNotBelowEndIsCorruption() {
        byte[] bad = HexFormat.of().parseHex("06" + "0164" + "0162" + "01");
        assertThrows(CorruptionException.class, () -> VersionEdit.decode(bad, Path.of("/MANIFEST-000001"), 0));
    }
}
