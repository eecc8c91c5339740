package io.bloomstore.cli.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SyncJournalFileSystem} and {@link PowerLoss} together: a process's file changes on the
 * real file system, then the power loss applied from the journal — unsynced data dropped,
 * directory changes no directory sync followed undone, synced ones kept.
 */
class PowerLossTest {
    @TempDir
    Path tmp;

    private static void write(WritableFile f, String text) throws IOException {
        f.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    private List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void whatNoSyncCoveredIsGoneAndWhatOneCoveredStays() throws IOException {
        Path dir = tmp.resolve("store");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("CURRENT"), "old\n");
        Files.writeString(dir.resolve("old.sst"), "an old table");
        Path journal = tmp.resolve("journal.log");
        SyncJournalFileSystem fs = new SyncJournalFileSystem(journal);

        try (WritableFile durable = fs.create(dir.resolve("000001.log"))) {
            write(durable, "synced");
            durable.sync();
            write(durable, "-not synced");
        }
        fs.syncDirectory(dir);
        try (WritableFile tmpCurrent = fs.create(dir.resolve("CURRENT.tmp"))) {
            write(tmpCurrent, "new\n");
            tmpCurrent.sync();
        }
        fs.rename(dir.resolve("CURRENT.tmp"), dir.resolve("CURRENT"));
        fs.delete(dir.resolve("old.sst"));
        try (WritableFile lost = fs.create(dir.resolve("000002.log"))) {
            write(lost, "synced, but its name never was");
            lost.sync();
        }
        assertEquals(List.of("000001.log", "CURRENT", "000002.log").stream().sorted().toList(),
                fs.list(dir).stream().sorted().toList(), "hidden names are not listed");

        PowerLoss.Result r = PowerLoss.apply(journal);

        assertEquals(List.of("000001.log", "CURRENT", "old.sst"), names(dir));
        assertEquals("synced", Files.readString(dir.resolve("000001.log")));
        assertEquals("old\n", Files.readString(dir.resolve("CURRENT")), "the unsynced rename is undone");
        assertEquals("an old table", Files.readString(dir.resolve("old.sst")), "the unsynced delete is undone");
        assertEquals(4, r.changesUndone(), "create CURRENT.tmp, rename, delete, create 000002.log");
        assertEquals(1, r.filesCut());
        assertEquals("-not synced".length(), r.bytesDropped());
    }

    @Test
    void aDirectorySyncMakesRenamesAndDeletesStick() throws IOException {
        Path dir = tmp.resolve("store");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("CURRENT"), "old\n");
        Files.writeString(dir.resolve("old.sst"), "an old table");
        Path journal = tmp.resolve("journal.log");
        SyncJournalFileSystem fs = new SyncJournalFileSystem(journal);
        try (WritableFile tmpCurrent = fs.create(dir.resolve("CURRENT.tmp"))) {
            write(tmpCurrent, "new\n");
            tmpCurrent.sync();
        }
        fs.rename(dir.resolve("CURRENT.tmp"), dir.resolve("CURRENT"));
        fs.delete(dir.resolve("old.sst"));
        fs.syncDirectory(dir);
        PowerLoss.Result r = PowerLoss.apply(journal);
        assertEquals(List.of("CURRENT"), names(dir), "no hidden file is left behind");
        assertEquals("new\n", Files.readString(dir.resolve("CURRENT")));
        assertEquals(0, r.changesUndone());
        assertFalse(Files.exists(dir.resolve("old.sst")));
        assertTrue(r.bytesDropped() == 0);
    }
}
