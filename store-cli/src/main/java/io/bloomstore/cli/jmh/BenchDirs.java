package io.bloomstore.cli.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The scratch directories the store benchmarks build their stores in.
 *
 * <p>Thread safety: stateless.
 */
final class BenchDirs {
    private BenchDirs() {
    }

    /** Deletes {@code dir} and everything under it, deepest first. */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
