package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ScratchDirectory}: the scratch directory a command killed mid-way left beside a store is
 * removed by the next command that makes one (its owner, a child JVM, was killed with kill -9),
 * while one whose owner still runs is kept; and nothing else is touched — a directory without an
 * owner lock, one not named as the CLI names them, a symbolic link, what a link in a removed
 * directory points to, and this JVM's own.
 */
class ScratchDirectoryTest {
    private static final String PREFIX = LiveStoreView.SCRATCH_PREFIX;

    @TempDir
    Path tmp;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Starts an owner in a child JVM and returns the scratch directory it printed. */
    private Path startOwner(Process[] started, Path store, Path outside) throws IOException {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), ScratchOwnerProgram.class.getName(), store.toString(), PREFIX,
                outside.toString());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(p);
        started[0] = p;
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null, "the owner printed its directory");
        return Path.of(line);
    }

    @Test
    void theDirectoryOfAKilledOwnerGoesThatOfALivingOneStays() throws Exception {
        Path store = Files.createDirectories(tmp.resolve("db"));
        Path outside = Files.writeString(tmp.resolve("precious.txt"), "not the CLI's");
        Process[] killed = new Process[1];
        Process[] living = new Process[1];
        Path dead = startOwner(killed, store, outside);
        Path alive = startOwner(living, store, outside);
        assertEquals(tmp, dead.getParent());
        assertTrue(dead.getFileName().toString().startsWith("." + PREFIX));
        killed[0].destroyForcibly();
        killed[0].waitFor(30, TimeUnit.SECONDS);
        assertTrue(Files.isDirectory(dead.resolve("scratch/view-0")), "a kill leaves the directory");

        try (ScratchDirectory next = ScratchDirectory.create(store, PREFIX)) {
            assertFalse(Files.exists(dead), "the killed owner's directory is removed by the next command");
            assertTrue(Files.exists(alive.resolve("scratch/view-0/000007.sst")), "a living owner's stays whole");
            assertTrue(Files.isDirectory(next.path()));
        }
        assertEquals("not the CLI's", Files.readString(outside), "a link's target is never followed");

        living[0].getOutputStream().close();
        assertTrue(living[0].waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, living[0].exitValue());
        assertFalse(Files.exists(alive), "an owner that ends removes its own directory");
        assertEquals(List.of("db", "precious.txt"), names(tmp));
    }

    @Test
    void leavesAloneWhatIsNotProvablyAbandoned() throws Exception {
        Path parent = Files.createDirectories(tmp.resolve("p"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        // An abandoned one: an owner lock nobody holds (its owner died; no process needed for that).
        Path abandoned = Files.createDirectories(parent.resolve("." + PREFIX + "1"));
        Files.writeString(abandoned.resolve(ScratchDirectory.OWNER_LOCK), "pid 1");
        Files.createDirectories(abandoned.resolve("scratch"));
        // Named alike but without an owner lock: an owner that has not locked it yet, or an older build.
        Path unlocked = Files.createDirectories(parent.resolve("." + PREFIX + "2"));
        // An owner lock, but another name.
        Path otherName = Files.createDirectories(parent.resolve(".something-else-3"));
        Files.writeString(otherName.resolve(ScratchDirectory.OWNER_LOCK), "pid 1");
        // A symbolic link named alike, to a directory with a free owner lock.
        Files.writeString(outside.resolve(ScratchDirectory.OWNER_LOCK), "pid 1");
        Files.createSymbolicLink(parent.resolve("." + PREFIX + "4"), outside);
        // A file named alike.
        Files.writeString(parent.resolve("." + PREFIX + "5"), "a file");

        try (ScratchDirectory own = ScratchDirectory.create(parent.resolve("db"), PREFIX)) {
            assertFalse(Files.exists(abandoned));
            assertEquals(0, ScratchDirectory.removeStale(parent, "." + PREFIX), "this JVM's own is not swept");
            assertTrue(Files.isDirectory(own.path()));
        }
        assertTrue(Files.isDirectory(unlocked));
        assertTrue(Files.exists(otherName.resolve(ScratchDirectory.OWNER_LOCK)));
        assertTrue(Files.isSymbolicLink(parent.resolve("." + PREFIX + "4")));
        assertTrue(Files.exists(outside.resolve(ScratchDirectory.OWNER_LOCK)));
        assertTrue(Files.isRegularFile(parent.resolve("." + PREFIX + "5")));
        assertEquals(List.of("." + PREFIX + "2", "." + PREFIX + "4", "." + PREFIX + "5", ".something-else-3"),
                names(parent));
    }

    private static List<String> names(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.forEach(p -> names.add(p.getFileName().toString()));
        }
        names.sort(null);
        return names;
    }
}
