package io.bloomstore.cli.jdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The multi-release store-core jar on each JDK, in a child JVM ({@link NiceProbe}): with
 * {@code backgroundNiceness(5)}, on Java 22+ the flush and compaction threads lower themselves 5
 * nice levels below the main thread through the foreign-function API, and the WAL's sync threads
 * (which writers wait on) keep the main thread's priority; on Java 17 nothing is lowered; with the
 * default (0) nothing is lowered on either. Linux only; the Java 25 cases need the machine's second
 * JDK ({@value #JDK25}).
 */
class ThreadNiceTest {
    static final String JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";

    @TempDir
    Path tmp;

    private List<String> probe(String java, int niceness) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), NiceProbe.class.getName(),
                tmp.resolve("store-" + niceness + "-" + System.nanoTime()).toString(), Integer.toString(niceness)));
        if (java.endsWith("17") || !java.contains("25")) {
            cmd.remove("--enable-native-access=ALL-UNNAMED");
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the probe ended");
        assertEquals(0, p.exitValue(), out);
        return out.lines().filter(l -> l.matches("\\S+ -?\\d+")).toList();
    }

    private static int niceOf(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).mapToInt(l -> Integer.parseInt(l.split(" ")[1]))
                .max().orElseThrow(() -> new AssertionError("no " + prefix + " thread in " + lines));
    }

    private static boolean linux() {
        return System.getProperty("os.name", "").startsWith("Linux") && Files.exists(Path.of("/proc/thread-self"));
    }

    private static boolean jarOnClassPath() {
        return System.getProperty("java.class.path").matches(".*store-core[^" + java.io.File.pathSeparator + "]*\\.jar.*");
    }

    @Test
    void onJava25TheBackgroundThreadsAreLoweredAndTheSyncThreadsAreNot() throws Exception {
        assumeTrue(linux() && Files.isExecutable(Path.of(JDK25)) && jarOnClassPath(),
                "needs Linux, " + JDK25 + " and the packaged store-core jar");
        List<String> lines = probe(JDK25, 5);
        int main = niceOf(lines, "main");
        assertEquals(Math.min(19, main + 5), niceOf(lines, "bloomstore-flus"), lines.toString());
        assertEquals(Math.min(19, main + 5), niceOf(lines, "bloomstore-comp"), lines.toString());
        for (String l : lines) {
            if (l.startsWith("bloomstore-sync")) {
                assertEquals(main, Integer.parseInt(l.split(" ")[1]), "a WAL sync thread was lowered: " + lines);
            }
        }
    }

    @Test
    void byDefaultNothingIsLoweredOnAnyJdk() throws Exception {
        assumeTrue(linux());
        List<String> javas = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (Files.isExecutable(Path.of(JDK25)) && jarOnClassPath()) {
            javas.add(JDK25);
        }
        for (String java : javas) {
            List<String> lines = probe(java, 0);
            int main = niceOf(lines, "main");
            assertFalse(lines.stream().filter(l -> l.startsWith("bloomstore"))
                    .anyMatch(l -> Integer.parseInt(l.split(" ")[1]) != main), java + ": " + lines);
        }
    }

    @Test
    void onJava17AskingChangesNothing() throws Exception {
        assumeTrue(linux() && Runtime.version().feature() < 22);
        List<String> lines = probe(Path.of(System.getProperty("java.home"), "bin", "java").toString(), 5);
        int main = niceOf(lines, "main");
        assertEquals(main, niceOf(lines, "bloomstore-flus"), lines.toString());
    }
}
