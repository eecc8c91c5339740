package io.bloomstore.cli.store;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A child JVM for {@link ScratchDirectoryTest}: a command in the middle of its work. It creates a
 * scratch directory for the store in {@code args[0]} with the prefix {@code args[1]}, puts a file,
 * a subdirectory and a symbolic link to {@code args[2]} in it, prints the directory's path, and
 * waits until its standard input closes (or it is killed).
 */
public final class ScratchOwnerProgram {
    private ScratchOwnerProgram() {
    }

    public static void main(String[] args) throws Exception {
        ScratchDirectory scratch = ScratchDirectory.create(Path.of(args[0]), args[1]);
        Path view = Files.createDirectories(scratch.path().resolve("scratch").resolve("view-0"));
        Files.writeString(view.resolve("000007.sst"), "a link to a table, here a file");
        Files.createSymbolicLink(scratch.path().resolve("outside"), Path.of(args[2]));
        System.out.println(scratch.path());
        System.out.flush();
        while (System.in.read() >= 0) {
            // Waits for its end.
        }
        scratch.close();
    }
}
