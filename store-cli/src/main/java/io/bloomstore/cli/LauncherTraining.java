package io.bloomstore.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import io.bloomstore.cli.store.QuickCommands;

/**
 * The training run of the {@code bloomstore} launcher ({@code store-cli/src/main/launcher}): the
 * store commands a user types once per process, run in one JVM on a small store in a temporary
 * directory, so that the class-data-sharing archive (or Java 25's AOT cache) the launcher makes
 * from this run holds the classes, and on Java 25 the method profiles, of every one of them.
 * Prints nothing; exits non-zero if a command fails (the launcher then keeps no archive).
 *
 * <p>Thread safety: a program.
 */
public final class LauncherTraining {
    private LauncherTraining() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("bloomstore-training");
        try {
            String data = dir.resolve("db").toString();
            Path keys = dir.resolve("keys.txt");
            Files.writeString(keys, "k1\nk2\nabsent\n");
            StringBuilder load = new StringBuilder();
            for (int i = 0; i < 2_000; i++) {
                load.append("key").append(i).append('\t').append("value-").append(i).append('\n');
            }
            Path loadFile = dir.resolve("load.tsv");
            Files.writeString(loadFile, load);
            List<String[]> commands = List.of(
                    new String[] {"--data", data, "put", "k1", "v1"},
                    new String[] {"--data", data, "put", "k2", "v2"},
                    new String[] {"--data", data, "load", loadFile.toString()},
                    new String[] {"--data", data, "flush"},
                    new String[] {"--data", data, "get", "k1"},
                    new String[] {"--data", data, "get", "key77"},
                    new String[] {"--data", data, "get", "absent"},
                    new String[] {"--data", data, "get", "--keys-from", keys.toString()},
                    new String[] {"--data", data, "delete", "k2"},
                    new String[] {"--data", data, "scan", "--limit", "10"},
                    new String[] {"--data", data, "stats"});
            Start.prepare(commands.get(0));
            for (String[] command : commands) {
                StringWriter sink = new StringWriter();
                Main main = new Main(new ByteArrayInputStream(new byte[0]));
                int code = Main.commandLine(main, command, new PrintWriter(sink), new PrintWriter(sink)).execute(command);
                if (code != ExitCodes.OK && code != ExitCodes.NOT_FOUND) {
                    System.err.println("bloomstore launcher training: " + String.join(" ", command) + " exited " + code
                            + ": " + sink);
                    System.exit(1);
                }
            }
            // The short commands' picocli-free path, as Start.main takes it.
            for (String[] command : List.of(
                    new String[] {"--data", data, "put", "k3", "v3"},
                    new String[] {"--data", data, "get", "k1"},
                    new String[] {"--data", data, "get", "absent"},
                    new String[] {"--data", data, "delete", "k3"},
                    new String[] {"--data", data, "scan", "--limit", "10"},
                    new String[] {"--data", data, "stats"},
                    new String[] {"--data", data, "flush"})) {
                StringWriter sink = new StringWriter();
                int code = QuickCommands.tryRun(command, new PrintWriter(sink), new PrintWriter(sink));
                if (code != ExitCodes.OK && code != ExitCodes.NOT_FOUND) {
                    System.err.println("bloomstore launcher training: " + String.join(" ", command) + " exited " + code
                            + ": " + sink);
                    System.exit(1);
                }
            }
        } finally {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
