package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writable open chooses how filters reach memory on a thread of its own (Chronicle Bytes'
 * start-up, about 150 ms of a fresh JVM, runs beside the first writes instead of inside the first
 * flush), and close waits for that choice: a program that exits right after close does not exit
 * inside Chronicle's start-up, whose own thread would die printing "Shutdown in progress". A
 * read-only open and a JVM whose setting names the memory start no such thread. Each case runs in
 * a fresh JVM ({@link FilterMemoryAheadProgram}) with this JVM's Chronicle flags, since the choice
 * is made once per JVM.
 */
class FilterMemoryAheadTest {
    @TempDir
    Path dir;

    @Test
    void aWritableOpenChoosesAheadAndCloseWaitsForIt() throws Exception {
        // Three fresh JVMs: each closes within milliseconds of its open, inside the choice.
        for (int i = 0; i < 3; i++) {
            String out = run(dir.resolve("db" + i), "write");
            assertTrue(out.contains("started true\n"), out);
            assertTrue(out.contains("finished true alive false\n"), out);
        }
    }

    @Test
    void aNamedFilterMemoryStartsNoThread() throws Exception {
        String out = run(dir.resolve("db"), "write", "-Dbloomstore.offheap=jdk-read");
        assertTrue(out.contains("started false\n"), out);
        assertTrue(out.contains("finished false alive false\n"), out);
    }

    @Test
    void aReadOnlyOpenStartsNoThread() throws Exception {
        Path db = dir.resolve("db");
        try (Store store = Store.open(db)) {
            store.put("a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8));
        }
        String out = run(db, "read-only");
        assertTrue(out.contains("started false\n"), out);
        assertTrue(out.contains("finished false alive false\n"), out);
    }

    private String run(Path db, String mode, String... jvmFlags) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--add-opens") || flag.startsWith("--add-exports")) {
                command.add(flag);
            }
        }
        command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), FilterMemoryAheadProgram.class.getName(),
                mode, db.toString()));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish in 120 s");
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "child failed:\n" + stdout + stderr);
        assertFalse(stderr.contains("Shutdown in progress") || stderr.contains("\tat "), "no stack trace: " + stderr);
        return stdout;
    }
}
