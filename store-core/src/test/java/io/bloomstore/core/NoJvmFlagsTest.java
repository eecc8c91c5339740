package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A service that embeds the store needs no JVM flag: {@link EmbeddedProgram} runs end to end
 * (open, write, flush, reopen, read through filters) in a child JVM started with nothing but
 * {@code -cp}, on this JVM's Java and on Java 25 where it is installed. Chronicle Bytes cannot
 * initialize there, so filters use the JDK's mappings; the choice is logged once at INFO and shown
 * in the statistics.
 */
class NoJvmFlagsTest {
    private static final Path JAVA_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

    @TempDir
    Path dir;

    static Stream<String> javaHomes() {
        return Stream.of(System.getProperty("java.home"), JAVA_25.toString());
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void aStoreWithFiltersRunsWithoutAnyJvmFlag(String javaHome) throws Exception {
        Path java = Path.of(javaHome, "bin", "java");
        Assumptions.assumeTrue(Files.isExecutable(java), "no JVM at " + javaHome);
        Path logConfig = dir.resolve("logback.xml");
        Files.writeString(logConfig, """
                <configuration>
                  <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>%level %logger - %msg%n</pattern></encoder>
                  </appender>
                  <logger name="io.bloomstore" level="INFO"/>
                  <root level="WARN"><appender-ref ref="ERR"/></root>
                </configuration>
                """);
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx256m",
                "-Dlogback.configurationFile=" + logConfig, "-cp", System.getProperty("java.class.path"),
                EmbeddedProgram.class.getName(), dir.resolve("db").toString()));
        Process p = new ProcessBuilder(command).redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish in 120 s");
        String out = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
        String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        System.out.printf("java %s: %s%s", javaHome, out, err);
        assertEquals(0, p.exitValue(), "child failed:\n" + out + err);
        assertTrue(out.contains("filter-memory jdk-bytebuffer\n"), out);
        Matcher m = Pattern.compile("ok (\\d+) (\\d+)").matcher(out);
        assertTrue(m.find(), out);
        assertEquals(2L * EmbeddedProgram.KEYS, Long.parseLong(m.group(1)));
        assertTrue(Long.parseLong(m.group(2)) >= EmbeddedProgram.KEYS * 9 / 10,
                "filters answered absent for only " + m.group(2) + " of " + EmbeddedProgram.KEYS + " absent keys");
        assertEquals(1, count(err, "Filter memory: JDK ByteBuffer mappings"), err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
        assertFalse(err.contains("ERROR ") || err.contains("WARN io.bloomstore.bloom"), err);
    }

    @org.junit.jupiter.api.Test
    void forcingChronicleWithoutTheFlagsIsAClearError() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xmx256m", "-Dbloomstore.offheap=chronicle", "-cp",
                System.getProperty("java.class.path"), EmbeddedProgram.class.getName(), dir.resolve("db").toString())
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish in 120 s");
        String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        assertTrue(p.exitValue() != 0, err);
        assertTrue(err.contains("IllegalStateException: bloomstore.offheap=chronicle but Chronicle Bytes cannot "
                + "initialize"), err);
        assertTrue(err.contains("at io.bloomstore.core.Store.open"), "the open fails, not a later flush: " + err);
        assertFalse(err.contains("NoClassDefFoundError"), err);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
