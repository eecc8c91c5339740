package io.bloomstore.cli.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.bloomstore.cli.Main;

/**
 * One-shot command latency: what a user typing {@code bloomstore get KEY} waits for. Each store
 * command runs as a child process against the bench's loaded BloomStore store, {@code runs} times
 * on each path — the launcher installed beside the jar ({@code store-cli/target/bloomstore}, with
 * its class-data-sharing archive, made before timing starts) and plain {@code java -jar
 * bloomstore.jar} — alternating the paths so that a burst of load on the machine hits both alike.
 * Timed is the wall time from starting the process to its exit. A JVM that only prints its version
 * ({@code java -version}) is timed alike, as the floor any Java command stands on.
 *
 * <p>Commands: {@code get} of a loaded key and of an absent one, {@code put} and {@code delete} of
 * a new key, {@code scan --limit 10} and {@code stats}. Keys go as hex ({@code --hex}).
 *
 * <p>Thread safety: stateless; {@link #run} blocks until its children have finished.
 */
final class OneShotProbe {
    static final String LAUNCHER = "launcher";
    static final String JAVA_JAR = "java -jar";
    static final String JVM_FLOOR = "java -version";

    private OneShotProbe() {
    }

    /** The bench jar this JVM runs from, or null (classes on a directory: tests). */
    static Path runningJar() {
        try {
            Path p = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return p.toString().endsWith(".jar") && Files.isRegularFile(p) ? p : null;
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Times the commands on the store in {@code store}, {@code runs} times per command and path.
     *
     * @throws IllegalStateException when this JVM does not run from {@code bloomstore.jar}
     */
    static List<OneShotResult> run(Path store, BenchConfig config, int runs, int round) throws IOException {
        Path jar = runningJar();
        if (jar == null) {
            throw new IllegalStateException("the one-shot probe runs the commands of bloomstore.jar; this JVM does not"
                    + " run from it");
        }
        Path launcher = jar.resolveSibling("bloomstore");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        KeySpace keys = new KeySpace(config.keys(), config.keySize());
        byte[] k = keys.newKeyBuffer();
        keys.present(config.keys() / 2, k);
        String present = HexFormat.of().formatHex(k);
        keys.missing(config.keys() / 3, k);
        String absent = HexFormat.of().formatHex(k);
        keys.missing(config.keys() / 5, k);
        String fresh = HexFormat.of().formatHex(k);
        String data = store.toString();
        Map<String, List<String>> commands = new LinkedHashMap<>();
        commands.put("get", List.of("--data", data, "get", "--hex", present));
        commands.put("get absent", List.of("--data", data, "get", "--hex", absent));
        commands.put("put", List.of("--data", data, "put", "--hex", fresh, "00ff"));
        commands.put("delete", List.of("--data", data, "delete", "--hex", fresh));
        commands.put("scan --limit 10", List.of("--data", data, "scan", "--limit", "10"));
        commands.put("stats", List.of("--data", data, "stats"));

        Map<String, List<String>> paths = new LinkedHashMap<>();
        // The launcher runs the bloomstore.jar beside it: only when that is the jar of this run.
        if (Files.isExecutable(launcher) && jar.getFileName().toString().equals("bloomstore.jar")) {
            paths.put(LAUNCHER, List.of(launcher.toString()));
            // Untimed: the launcher makes its archive on its first short command.
            time(concat(List.of(launcher.toString()), commands.get("stats")), java);
        }
        paths.put(JAVA_JAR, List.of(java, "-jar", jar.toString()));

        List<OneShotResult> results = new ArrayList<>();
        for (Map.Entry<String, List<String>> c : commands.entrySet()) {
            Map<String, double[]> millis = new LinkedHashMap<>();
            for (String p : paths.keySet()) {
                millis.put(p, new double[runs]);
            }
            for (int i = 0; i < runs; i++) {
                for (Map.Entry<String, List<String>> p : paths.entrySet()) {
                    millis.get(p.getKey())[i] = time(concat(p.getValue(), c.getValue()), java);
                }
            }
            millis.forEach((p, ms) -> results.add(OneShotResult.of(c.getKey(), p, round, ms)));
        }
        double[] floor = new double[runs];
        for (int i = 0; i < runs; i++) {
            floor[i] = time(List.of(java, "-Xshare:auto", "-version"), java);
        }
        results.add(OneShotResult.of("jvm", JVM_FLOOR, round, floor));
        return results;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Wall milliseconds from start to exit; the command must exit 0 or 1 (an absent key). */
    private static double time(List<String> command, String java) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.PIPE);
        pb.environment().put("JAVA_HOME", Path.of(java).getParent().getParent().toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        byte[] err;
        try {
            err = p.getErrorStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("one-shot command did not finish in 120 s: " + command);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while timing " + command, e);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        if (p.exitValue() > 1) {
            throw new IOException("one-shot command " + command + " exited " + p.exitValue() + ": " + new String(err));
        }
        return ms;
    }

    /** Prints the table: per command, each path's median and p90, and the launcher against java -jar. */
    static void print(PrintWriter out, List<OneShotResult> results, int runs) {
        if (results.isEmpty()) {
            return;
        }
        out.printf("%nOne-shot commands on the bench's BloomStore store: wall ms from process start to exit, median"
                + " and p90 of %d runs per round%n", runs);
        out.printf("%-18s %-14s %10s %10s%n", "command", "path", "median", "p90");
        for (OneShotResult r : OneShotResult.mediansOverRounds(results)) {
            out.printf("%-18s %-14s %10.0f %10.0f%n", r.command(), r.path(), r.medianMillis(), r.p90Millis());
        }
    }

    static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
