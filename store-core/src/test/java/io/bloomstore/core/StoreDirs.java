package io.bloomstore.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Copies of store directories for tests: what a killed process leaves, a store to damage while its
 * original stays whole, a backup image.
 *
 * <p>Thread safety: stateless; a copy of a directory another thread writes is whatever it reads.
 */
public final class StoreDirs {
    /** Every file but {@code LOCK}: the files of a store as a process killed now leaves them. */
    public static final Predicate<String> AS_KILLED = name -> !name.equals("LOCK");

    private StoreDirs() {
    }

    /**
     * Copies the entries of {@code from} whose names {@code which} accepts, in name order, into
     * {@code to} (created); a subdirectory is copied as an empty directory. Returns {@code to}.
     */
    public static Path copy(Path from, Path to, Predicate<String> which) throws IOException {
        Files.createDirectories(to);
        List<Path> entries;
        try (Stream<Path> s = Files.list(from)) {
            entries = s.filter(p -> which.test(p.getFileName().toString())).sorted().toList();
        }
        for (Path p : entries) {
            Files.copy(p, to.resolve(p.getFileName().toString()));
        }
        return to;
    }

    /** Copies every entry of {@code from} into {@code to} (created). Returns {@code to}. */
    public static Path copy(Path from, Path to) throws IOException {
        return copy(from, to, name -> true);
    }

    /** Copies the tree under {@code from} into {@code to}, subdirectories and all. */
    public static void copyTree(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
