package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import io.bloomstore.core.wal.LogWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the MANIFEST format: {@code testdata/golden/manifest/MANIFEST-000001} (and its CURRENT) were
 * written by {@link #write} and must read back to the same version and be byte-identical to what
 * this build writes. Regenerate with {@code -Dbloomstore.regenerateGolden=true} after a deliberate
 * format change (documented in docs/format/manifest.md).
 */
class ManifestGoldenTest {
    static final Path GOLDEN_DIR = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden/manifest");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<VersionEdit> edits() {
        FileMetaData t5 = new FileMetaData(5, 4096, 1200, b("apple"), b("melon"), 100, 1, 100);
        FileMetaData t7 = new FileMetaData(7, 8192, 2400, b("banana"), b("zucchini"), 200, 101, 300);
        FileMetaData t9 = new FileMetaData(9, 1000, 0, b("a"), b("b"), 3, 301, 303);
        return List.of(
                new VersionEdit().setLogNumber(0).setNextFileNumber(2).setLastSequence(0),
                new VersionEdit().setLogNumber(6).setNextFileNumber(8).setLastSequence(100).addFile(0, t5),
                new VersionEdit().setLogNumber(8).setNextFileNumber(10).setLastSequence(300).addFile(0, t7),
                new VersionEdit().setNextFileNumber(11).setLastSequence(303).deleteFile(0, 5).addFile(1, t9));
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
    void goldenManifestReadsBackAndIsByteIdentical() throws IOException {
        byte[] expected = write();
        Path manifest = GOLDEN_DIR.resolve("MANIFEST-000001");
        Path current = GOLDEN_DIR.resolve("CURRENT");
        if (Boolean.getBoolean("bloomstore.regenerateGolden")) {
            Files.createDirectories(GOLDEN_DIR);
            Files.write(manifest, expected);
            Files.writeString(current, "MANIFEST-000001\n");
        }
        assertTrue(Files.exists(manifest), manifest + " missing; run with -Dbloomstore.regenerateGolden=true");
        byte[] golden = Files.readAllBytes(manifest);

        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/r");
        fs.createDirectories(dir);
        fs.setContents(dir.resolve("MANIFEST-000001"), golden);
        fs.setContents(dir.resolve("CURRENT"), Files.readAllBytes(current));
        List<String> decoded = new ArrayList<>();
        try (RandomReadFile f = fs.openRead(dir.resolve("MANIFEST-000001"))) {
            LogReader reader = new LogReader(f, dir.resolve("MANIFEST-000001"), LogFormat.MANIFEST_MAGIC);
            for (byte[] rec = reader.next(); rec != null; rec = reader.next()) {
                decoded.add(VersionEdit.decode(rec, dir, reader.lastRecordOffset()).toString());
            }
        }
        assertEquals(edits().stream().map(VersionEdit::toString).toList(), decoded);

        try (VersionSet vs = VersionSet.recover(fs, dir)) {
            Version v = vs.current();
            assertEquals(List.of(7L), v.files(0).stream().map(FileMetaData::fileNumber).toList());
            assertEquals(List.of(9L), v.files(1).stream().map(FileMetaData::fileNumber).toList());
            assertEquals(8, vs.logNumber());
            assertEquals(303, vs.lastSequence());
            assertTrue(vs.newFileNumber() >= 11);
        }
        assertArrayEquals(expected, golden, "this build writes the MANIFEST format differently from the golden file");
    }
}
