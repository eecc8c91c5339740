package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Recovery applies a MANIFEST's edits with {@link Version.Builder}, one version at the end: it must
 * give what applying the edits one by one gives ({@link Version#apply}), for the edits a store
 * writes — flushes into level 0, merges that delete inputs and add outputs, trivial moves that
 * delete and re-add a table one level down in the same edit, deletions of tables not live — and a
 * MANIFEST whose edit adds a live table again is damage. Seed 20261127.
 */
class VersionBuilderTest {

    private static byte[] key(int n) {
        return String.format("k%08d", n).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void buildingOnceEqualsApplyingEditByEdit() {
        Random random = new Random(20261127);
        for (int series = 0; series < 50; series++) {
            Version applied = Version.empty();
            Version.Builder builder = new Version.Builder();
            long number = 1;
            long seq = 0;
            int edits = 1 + random.nextInt(120);
            for (int e = 0; e < edits; e++) {
                VersionEdit edit = new VersionEdit();
                int kind = random.nextInt(4);
                List<FileMetaData> level0 = applied.files(0);
                if (kind == 0 || level0.isEmpty()) {
                    // A flush: a new table on top of level 0.
                    int lo = random.nextInt(1000);
                    edit.addFile(0, new FileMetaData(number++, 100, 10, key(lo), key(lo + random.nextInt(500)), 5,
                            seq + 1, seq + 5));
                    seq += 5;
                } else if (kind == 1) {
                    // A trivial move: the oldest level-0 table one level down, same number.
                    FileMetaData oldest = level0.get(level0.size() - 1);
                    int to = 1 + random.nextInt(Version.NUM_LEVELS - 1);
                    edit.deleteFile(0, oldest.fileNumber()).addFile(to, oldest);
                } else if (kind == 2) {
                    // A merge: all of level 0 and one deeper level replaced by tables with new numbers.
                    int to = 1 + random.nextInt(Version.NUM_LEVELS - 1);
                    for (FileMetaData f : level0) {
                        edit.deleteFile(0, f.fileNumber());
                    }
                    for (FileMetaData f : applied.files(to)) {
                        edit.deleteFile(to, f.fileNumber());
                    }
                    int outputs = random.nextInt(4);
                    for (int o = 0; o < outputs; o++) {
                        edit.addFile(to, new FileMetaData(number++, 100, 10, key(o * 2000), key(o * 2000 + 1999), 5,
                                1, seq));
                    }
                } else {
                    // A deletion of a table no longer (or never) live: a damaged MANIFEST, reported.
                    edit.deleteFile(random.nextInt(Version.NUM_LEVELS), number + 1000);
                    assertEquals("deletes table " + (number + 1000) + ", which is not live", applied.check(edit));
                    continue;
                }
                assertEquals(null, applied.check(edit));
                applied = applied.apply(edit);
                assertEquals(null, builder.apply(edit));
                if (random.nextInt(10) == 0 || e == edits - 1) {
                    Version built = builder.build();
                    for (int level = 0; level < Version.NUM_LEVELS; level++) {
                        assertEquals(applied.files(level), built.files(level), "series " + series + ", edit " + e
                                + ", level " + level);
                    }
                }
            }
        }
    }

    @Test
    void anEditAddingALiveTableIsReported() {
        FileMetaData t5 = new FileMetaData(5, 100, 10, key(1), key(9), 5, 1, 5);
        Version.Builder builder = new Version.Builder();
        assertEquals(null, builder.apply(new VersionEdit().addFile(0, t5)));
        assertEquals("adds table 5, which is live already", builder.apply(new VersionEdit().addFile(1, t5)));
        Version.Builder moved = new Version.Builder();
        moved.apply(new VersionEdit().addFile(0, t5));
        assertEquals(null, moved.apply(new VersionEdit().deleteFile(0, 5).addFile(1, t5)), "a trivial move");
        assertEquals(List.of(t5), moved.build().files(1));
        assertTrue(moved.build().files(0).isEmpty());
    }

    /** As RocksDB's version builder: deleting a table that is not live, or at another level, is a damaged MANIFEST. */
    @Test
    void anEditDeletingATableThatIsNotThereIsReported() {
        FileMetaData t5 = new FileMetaData(5, 100, 10, key(1), key(9), 5, 1, 5);
        Version.Builder builder = new Version.Builder();
        assertEquals("deletes table 7, which is not live", builder.apply(new VersionEdit().deleteFile(0, 7)));
        builder.apply(new VersionEdit().addFile(2, t5));
        assertEquals("deletes table 5 at level 1, but it lives at level 2",
                builder.apply(new VersionEdit().deleteFile(1, 5)));
        assertEquals(null, builder.apply(new VersionEdit().deleteFile(2, 5)));
        assertTrue(builder.build().allFiles().isEmpty());
    }

    @Test
    void recoveryRefusesAManifestThatAddsALiveTableAgain() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/twice");
        fs.createDirectories(dir);
        FileMetaData t5 = new FileMetaData(5, 100, 10, key(1), key(9), 5, 1, 5);
        List<VersionEdit> edits = new ArrayList<>(List.of(
                new VersionEdit().setLogNumber(0).setNextFileNumber(6).setLastSequence(0),
                new VersionEdit().setLastSequence(5).addFile(0, t5),
                new VersionEdit().addFile(1, t5)));
        try (LogWriter w = new LogWriter(fs.create(dir.resolve("MANIFEST-000001")), LogFormat.MANIFEST_MAGIC)) {
            for (VersionEdit e : edits) {
                w.addRecord(e.encode());
            }
        }
        fs.setContents(dir.resolve("CURRENT"), "MANIFEST-000001\n".getBytes(StandardCharsets.US_ASCII));
        CorruptionException e = assertThrows(CorruptionException.class, () -> VersionSet.recoverReadOnly(fs, dir));
        assertTrue(e.getMessage().contains("edit 3 adds table 5, which is live already"), e.getMessage());
        assertTrue(e.getMessage().contains("MANIFEST-000001"), e.getMessage());
    }
}
