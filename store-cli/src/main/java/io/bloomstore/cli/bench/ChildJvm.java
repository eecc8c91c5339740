package io.bloomstore.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link BenchChild} in a fresh JVM and returns the one result line it prints: the way the
 * benchmark measures what a single process sees (cold start, open time, heap and resident set)
 * without the parent's warm JIT, heap and mappings. {@link #javaCommand} gives the command line
 * for any other child class (the crash test's writer, {@code bloomstore stress}).
 *
 * <p>The child gets the parent's Java binary and class path, the parent's JVM options (heap size,
 * {@code -XX:SharedArchiveFile} for a class-data-sharing archive, ...) except debugging agents and
 * archive <em>creation</em>, and the module flags that the CLI jar's manifest grants under
 * {@code java -jar} (a {@code -cp} launch does not read the manifest), so the store maps its
 * filters the same way in both.
 *
 * <p>Thread safety: stateless.
 */
public final class ChildJvm {
    /** Marks the child's result line on its standard output. */
    static final String RESULT_PREFIX = "BLOOMSTORE-BENCH-CHILD ";
    private static final long TIMEOUT_MINUTES = 60;
    private static final List<String> MODULE_FLAGS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED");
    private static final List<String> NOT_INHERITED = List.of("-agentlib", "-javaagent", "-Xrunjdwp", "-Xdebug",
            "-XX:ArchiveClassesAtExit", "-XX:+AutoCreateSharedArchive", "-XX:StartFlightRecording");

    private ChildJvm() {
    }

    /** Whether a child JVM can create the engine {@code name} (the standard engines only). */
    static boolean canCreate(String name) {
        return EngineFactory.standard().names().contains(name);
    }

    /**
     * The command that runs {@code mainClass}'s {@code main} in a fresh JVM like this one: the same
     * Java binary, class path and JVM options (less debugging agents and archive creation), and the
     * module flags the CLI jar's manifest grants. Arguments follow.
     */
    public static List<String> javaCommand(Class<?> mainClass) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (NOT_INHERITED.stream().noneMatch(option::startsWith)) {
                command.add(option);
            }
        }
        command.addAll(MODULE_FLAGS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        return command;
    }

    /** Runs {@link BenchChild} with {@code args}; returns its result line without the prefix. */
    static String run(List<String> args) throws IOException {
        List<String> command = javaCommand(BenchChild.class);
        command.addAll(args);
        Path errors = Files.createTempFile("bloomstore-bench-child", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
            String output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException("benchmark child did not finish in " + TIMEOUT_MINUTES + " minutes: " + args);
            }
            for (String line : output.split("\n")) {
                if (line.startsWith(RESULT_PREFIX) && process.exitValue() == 0) {
                    return line.substring(RESULT_PREFIX.length());
                }
            }
            String err = Files.readString(errors, StandardCharsets.UTF_8);
            throw new IOException("benchmark child " + args + " exited " + process.exitValue() + " without a result: "
                    + tail(err.isBlank() ? output : err));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a benchmark child", e);
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    private static String tail(String text) {
        String t = text.strip();
        return t.length() <= 2000 ? t : "..." + t.substring(t.length() - 2000);
    }
}
