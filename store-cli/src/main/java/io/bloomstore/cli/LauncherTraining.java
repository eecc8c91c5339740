package io.bloomstore.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import io.bloomstore.cli.store.QuickCommands;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;

/**
 * The training run of the {@code bloomstore} launcher ({@code store-cli/src/main/launcher}): the
 * store commands a user types once per process, run in one JVM on a small store in a temporary
 * directory, so that the class-data-sharing archive (or Java 25's AOT cache) the launcher makes
 * from this run holds the classes, and on Java 25 the method profiles, of every one of them.
 * Prints nothing; exits non-zero if a command fails (the launcher then keeps no archive). With the
 * argument {@code short} it runs only the short commands' picocli-free path ({@code QuickCommands}),
 * for the archive of the JVM that runs those.
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
            // Keys of every length class the filters' hash function (XXH3) treats apart: its
            // classes for 9- to 16-byte keys would otherwise be missing from the archive, and a
            // get of such a key would open the jar and parse them (some 5 ms).
            StringBuilder shapes = new StringBuilder();
            for (int length : new int[] {1, 3, 6, 12, 16, 24, 100, 150, 300}) {
                shapes.append("k".repeat(length)).append('\n');
            }
            Path keys = dir.resolve("keys.txt");
            Files.writeString(keys, "k1\nk2\nabsent\n" + shapes);
            StringBuilder load = new StringBuilder();
            for (int i = 0; i < 2_000; i++) {
                load.append("key").append(i).append('\t').append("value-").append(i).append('\n');
            }
            for (String key : shapes.toString().split("\n")) {
                load.append(key).append('\t').append("value").append('\n');
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
                    new String[] {"--data", data, "delete-range", "zz0", "zz9"},
                    new String[] {"--data", data, "scan", "--limit", "10"},
                    new String[] {"--data", data, "stats"});
            Start.prepare(commands.get(0));
            // "short" (the launcher's archive for the short commands' JVM): only the picocli-free
            // path those commands take; "long" or nothing: every command.
            boolean quickOnly = args.length > 0 && args[0].equals("short");
            for (String[] command : quickOnly ? List.<String[]>of() : commands) {
                StringWriter sink = new StringWriter();
                Main main = new Main(new ByteArrayInputStream(new byte[0]));
                int code = Main.commandLine(main, command, new PrintWriter(sink), new PrintWriter(sink)).execute(command);
                if (code != ExitCodes.OK && code != ExitCodes.NOT_FOUND) {
                    System.err.println("bloomstore launcher training: " + String.join(" ", command) + " exited " + code
                            + ": " + sink);
                    System.exit(1);
                }
            }
            // The short commands' picocli-free path, as Start.main takes it. Forty puts first: every
            // eighth one's open writes the WAL into a level-0 table, and the fourth table starts a
            // compaction, so the archive holds the classes of a put that flushes and compacts.
            List<String[]> quick = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                quick.add(new String[] {"--data", data, "put", "p" + i, "v" + i});
            }
            quick.addAll(List.of(
                    new String[] {"--data", data, "put", "k3", "v3"},
                    new String[] {"--data", data, "get", "k1"},
                    new String[] {"--data", data, "get", "absent"},
                    // Keys the puts above left in tables: a lookup that passes a filter reads an index.
                    new String[] {"--data", data, "get", "p0"},
                    new String[] {"--data", data, "get", "p17"},
                    new String[] {"--data", data, "get", "k".repeat(12)},
                    new String[] {"--data", data, "get", "k".repeat(300)},
                    new String[] {"--data", data, "delete", "k3"},
                    new String[] {"--data", data, "delete-range", "zz0", "zz9"},
                    new String[] {"--data", data, "get", "k1"},
                    new String[] {"--data", data, "scan", "--limit", "10"},
                    new String[] {"--data", data, "stats"},
                    new String[] {"--data", data, "flush"}));
            if (quickOnly) {
                // A store whose level 1 holds several tables, built through the API: a scan of it
                // reads a level through a LevelIterator, which no store the commands above make has.
                String levels = dir.resolve("levels").toString();
                try (Store store = Store.open(Path.of(levels), StoreOptions.builder().memtableBytes(16 * 1024)
                        .targetFileBytes(16 * 1024).build())) {
                    for (int i = 0; i < 3_000; i++) {
                        store.put(("level-key-" + i).getBytes(StandardCharsets.UTF_8),
                                ("value-" + i).getBytes(StandardCharsets.UTF_8));
                    }
                    store.compact();
                }
                quick.add(new String[] {"--data", levels, "scan", "--limit", "10"});
                quick.add(new String[] {"--data", levels, "get", "level-key-7"});
            }
            for (String[] command : quick) {
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
