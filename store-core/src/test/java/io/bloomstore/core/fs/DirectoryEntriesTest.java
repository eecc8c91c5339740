package io.bloomstore.core.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link FaultInjectionFileSystem}'s model of directory entries: a create, rename or delete that
 * no directory sync followed is undone by a crash, newest first; one a sync followed survives.
 */
class DirectoryEntriesTest {
    private static final Path DIR = Path.of("/dir-entries");

    private static FaultInjectionFileSystem fresh(MemoryFileSystem mem) {
        mem.createDirectories(DIR);
        return new FaultInjectionFileSystem(mem, 1);
    }

    private static void write(FileSystem fs, String name, String text) throws IOException {
        try (WritableFile f = fs.create(DIR.resolve(name))) {
            f.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            f.sync();
        }
    }

    @Test
    void aSyncedFileWhoseNameWasNotSyncedIsGoneAfterACrash() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = fresh(mem);
        write(fs, "a", "synced data");
        fs.crash();
        assertFalse(mem.exists(DIR.resolve("a")), "the name was never made durable");
    }

    @Test
    void aDirectorySyncMakesTheNameDurable() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = fresh(mem);
        write(fs, "a", "synced data");
        fs.syncDirectory(DIR);
        fs.crash();
        assertArrayEquals("synced data".getBytes(StandardCharsets.UTF_8), mem.contents(DIR.resolve("a")));
    }

    @Test
    void anUnsyncedRenameIsUndoneAndTheReplacedTargetReturns() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = fresh(mem);
        write(fs, "CURRENT", "old");
        write(fs, "CURRENT.tmp", "new");
        fs.syncDirectory(DIR);
        fs.rename(DIR.resolve("CURRENT.tmp"), DIR.resolve("CURRENT"));
        assertEquals(List.of("CURRENT"), mem.list(DIR), "the base shows the names as they are now");
        fs.crash();
        assertArrayEquals("old".getBytes(StandardCharsets.UTF_8), mem.contents(DIR.resolve("CURRENT")));
        assertArrayEquals("new".getBytes(StandardCharsets.UTF_8), mem.contents(DIR.resolve("CURRENT.tmp")));
        assertEquals(2, mem.list(DIR).size(), mem.list(DIR).toString());
    }

    @Test
    void aSyncedRenameSurvivesAndTheReplacedTargetIsGone() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = fresh(mem);
        write(fs, "CURRENT", "old");
        write(fs, "CURRENT.tmp", "new");
        fs.rename(DIR.resolve("CURRENT.tmp"), DIR.resolve("CURRENT"));
        fs.syncDirectory(DIR);
        fs.crash();
        assertEquals(List.of("CURRENT"), mem.list(DIR));
        assertArrayEquals("new".getBytes(StandardCharsets.UTF_8), mem.contents(DIR.resolve("CURRENT")));
    }

    @Test
    void anUnsyncedDeleteIsUndoneWithOnlyTheSyncedData() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = fresh(mem);
        WritableFile f = fs.create(DIR.resolve("a"));
        f.write(ByteBuffer.wrap("synced".getBytes(StandardCharsets.UTF_8)));
        f.sync();
        f.write(ByteBuffer.wrap("-unsynced".getBytes(StandardCharsets.UTF_8)));
        f.close();
        fs.syncDirectory(DIR);
        fs.delete(DIR.resolve("a"));
        assertFalse(fs.list(DIR).contains("a"));
        fs.crash();
        assertArrayEquals("synced".getBytes(StandardCharsets.UTF_8), mem.contents(DIR.resolve("a")));
    }

    @Test
    void aTearingCrashKeepsAPrefixOfTheChanges() throws IOException {
        int sawPartial = 0;
        for (long seed = 0; seed < 20; seed++) {
            MemoryFileSystem mem = new MemoryFileSystem();
            mem.createDirectories(DIR);
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, seed);
            for (int i = 0; i < 5; i++) {
                write(fs, "f" + i, "x");
            }
            fs.crashTearing();
            List<String> names = mem.list(DIR);
            int kept = names.size();
            for (int i = 0; i < 5; i++) {
                assertEquals(i < kept, names.contains("f" + i), "seed " + seed + ": a prefix survives: " + names);
            }
            sawPartial += kept > 0 && kept < 5 ? 1 : 0;
        }
        assertTrue(sawPartial > 0, "some crash kept part of the changes");
    }
}
