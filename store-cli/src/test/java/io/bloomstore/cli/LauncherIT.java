package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code store-cli/target/bloomstore} launcher, run as a user runs it: beside (a link to) the
 * real jar, it answers as {@code java -jar} does, makes its class-data-sharing archive once, loads
 * BloomStore's classes from it on later runs, and falls back to a plain start when the archive is
 * damaged or switched off. Runs in {@code verify} (failsafe), after {@code package} installed the
 * launcher.
 */
class LauncherIT {
    private static final Path JAR = Path.of(System.getProperty("bloomstore.jar", "target/bloomstore.jar"))
            .toAbsolutePath();

    @TempDir
    Path dir;
    private Path launcher;

    @BeforeEach
    void install() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        launcher = bin.resolve("bloomstore");
        Files.copy(JAR.resolveSibling("bloomstore"), launcher);
        Files.createSymbolicLink(bin.resolve("bloomstore.jar"), JAR);
        Files.createSymbolicLink(bin.resolve("bloomstore-lean.jar"), JAR.resolveSibling("bloomstore-lean.jar"));
    }

    @Test
    void answersAsJavaJarAndMakesItsArchiveOnce() throws Exception {
        String data = dir.resolve("db").toString();
        Run put = run(Map.of(), "--data", data, "put", "k", "v");
        assertEquals(0, put.code, put.err);
        List<Path> archives = archives();
        assertEquals(1, archives.size(), "the first short command made the archive: " + archives);
        Run get = run(Map.of(), "--data", data, "get", "k");
        assertEquals(0, get.code, get.err);
        assertEquals("v\n", get.out);
        assertEquals("", get.err);
        Run absent = run(Map.of(), "--data", data, "get", "nope");
        assertEquals(1, absent.code, "exit codes pass through: " + absent.err);
        assertEquals(archives, archives(), "later runs reuse the archive");

        Path log = dir.resolve("classes.log");
        Run logged = run(Map.of("BLOOMSTORE_JAVA_OPTS", "-Xlog:class+load=info:file=" + log), "--data", data, "get", "k");
        assertEquals(0, logged.code, logged.err);
        String loads = Files.readString(log);
        assertTrue(loads.contains("io.bloomstore.cli.Start source: shared objects file"),
                "BloomStore's classes come from the archive");
        assertTrue(loads.contains("io.bloomstore.core.db.DbImpl source: shared objects file"),
                "the engine's too: the training opened a store");
        if (Runtime.version().feature() < 25) {
            // Up to Java 24 the archive is a static one, run with G1: the JDK's archived module graph
            // is used (a dynamic archive, or the serial collector, starts the JVM 25 ms slower).
            Path cds = dir.resolve("cds.log");
            Run cdsLogged = run(Map.of("BLOOMSTORE_JAVA_OPTS", "-Xlog:cds=info:file=" + cds), "--data", data, "get", "k");
            assertEquals(0, cdsLogged.code, cdsLogged.err);
            String cdsLog = Files.readString(cds);
            assertTrue(cdsLog.contains("full module graph: enabled"), cdsLog);
        }
        // The process's first lambda starts the JVM's method-handle machinery (6-10 ms of a short
        // command): no short command's path links one.
        List<List<String>> commands = List.of(List.of("get", "k"), List.of("get", "nope"), List.of("put", "k2", "v"),
                List.of("delete", "k2"), List.of("delete-range", "a", "b"), List.of("get", "k"),
                List.of("scan", "--limit", "10"), List.of("stats"));
        for (List<String> command : commands) {
            Path commandLog = dir.resolve("lambda.log");
            List<String> args = new ArrayList<>(List.of("--data", data));
            args.addAll(command);
            Run r = run(Map.of("BLOOMSTORE_JAVA_OPTS", "-Xlog:class+load=info:file=" + commandLog),
                    args.toArray(new String[0]));
            assertTrue(r.code == 0 || r.code == 1, command + ": " + r.err);
            String commandLoads = Files.readString(commandLog);
            assertFalse(commandLoads.contains("java.lang.invoke.LambdaMetafactory"),
                    command + " linked a lambda: " + lambdaLines(commandLoads));
        }
    }

    private static String lambdaLines(String log) {
        StringBuilder b = new StringBuilder();
        for (String line : log.split("\n")) {
            if (line.contains("Lambda")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    @Test
    void aDamagedArchiveOrCdsOffFallsBackQuietly() throws Exception {
        String data = dir.resolve("db").toString();
        assertEquals(0, run(Map.of(), "--data", data, "put", "k", "v").code);
        for (Path a : archives()) {
            a.toFile().setWritable(true);
            Files.writeString(a, "not an archive");
        }
        Run damaged = run(Map.of(), "--data", data, "get", "k");
        assertEquals(0, damaged.code, damaged.err);
        assertEquals("v\n", damaged.out);
        assertEquals("", damaged.err, "the JVM starts without the archive and says nothing");
        Run off = run(Map.of("BLOOMSTORE_CDS", "off"), "--data", data, "get", "k");
        assertEquals(0, off.code, off.err);
        assertEquals("v\n", off.out);
        Run help = run(Map.of(), "--help");
        assertEquals(0, help.code, help.err);
        assertTrue(help.out.contains("bench"), "every command is listed: " + help.out);
    }

    @Test
    void shortCommandsRunFromTheLeanJarTheRestFromTheFullOne() throws Exception {
        String data = dir.resolve("db").toString();
        Map<String, String> showPath = Map.of("BLOOMSTORE_JAVA_OPTS", "-XshowSettings:properties");
        for (String[] command : List.of(new String[] {"--data", data, "put", "k", "v"},
                new String[] {"--data", data, "get", "k"}, new String[] {"--data", data, "scan", "--limit", "1"},
                new String[] {"--data", data, "stats", "--json"})) {
            Run r = run(showPath, command);
            assertEquals(0, r.code, r.err);
            assertTrue(r.err.contains("bloomstore-lean.jar"), String.join(" ", command) + " ran from: " + r.err);
        }
        Run filterHelp = run(showPath, "filter", "--help");
        assertEquals(0, filterHelp.code, filterHelp.err);
        assertTrue(filterHelp.err.contains("java.class.path = " + dir.resolve("bin").resolve("bloomstore.jar")),
                "a command beyond the short ones runs from the full jar: " + filterHelp.err);

        Files.delete(dir.resolve("bin").resolve("bloomstore-lean.jar"));
        Run withoutLean = run(Map.of(), "--data", data, "get", "k");
        assertEquals(0, withoutLean.code, withoutLean.err);
        assertEquals("v\n", withoutLean.out, "without the lean jar the full one answers");
    }

    private List<Path> archives() throws IOException {
        Path cds = dir.resolve("bin").resolve("bloomstore-cds");
        if (!Files.isDirectory(cds)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(cds)) {
            return files.sorted().toList();
        }
    }

    private record Run(int code, String out, String err) {
    }

    private Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("launcher did not finish: " + cmd);
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
