package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A data-driven test file in the style {@code command / ---- / expected output}: comments
 * ({@code #}) and blank lines between cases, each case one command line, a {@code ----}
 * line and the expected output up to the next blank line. Running it feeds each command to
 * a function and compares its output; with {@code -Dbloomstore.rewrite=true} the file is
 * rewritten with the actual outputs instead, to be reviewed as a diff.
 */
final class DataDrivenFile {
    private static final String SEPARATOR = "----";

    private final Path path;
    private final List<String> lines;

    private DataDrivenFile(Path path, List<String> lines) {
        this.path = path;
        this.lines = lines;
    }

    /** A file under the repository's testdata directory (surefire sets {@code bloomstore.testdata}). */
    static DataDrivenFile testdata(String relative) throws IOException {
        String root = System.getProperty("bloomstore.testdata", "../testdata");
        Path path = Path.of(root, relative);
        return new DataDrivenFile(path, Files.readAllLines(path, StandardCharsets.UTF_8));
    }

    /** Runs every case in order through {@code run}, which returns the command's output. */
    void run(Function<String, String> run) throws IOException {
        boolean rewrite = Boolean.getBoolean("bloomstore.rewrite");
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                out.add(line);
                i++;
                continue;
            }
            int commandLine = i + 1;
            if (i + 1 >= lines.size() || !lines.get(i + 1).equals(SEPARATOR)) {
                throw new IllegalStateException(path + ":" + commandLine + ": expected '" + SEPARATOR + "' after the command");
            }
            int end = i + 2;
            while (end < lines.size() && !lines.get(end).isBlank()) {
                end++;
            }
            String expected = String.join("\n", lines.subList(i + 2, end));
            String actual = run.apply(line).strip();
            if (!rewrite) {
                assertEquals(expected, actual, path.getFileName() + ":" + commandLine + ": " + line);
            }
            out.add(line);
            out.add(SEPARATOR);
            out.addAll(actual.lines().toList());
            i = end;
        }
        if (rewrite) {
            Files.write(path, out, StandardCharsets.UTF_8);
        }
    }
}
