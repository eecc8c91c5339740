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
 * A flush maps its output's filter without waiting for the filter memory's choice: in a fresh JVM
 * the output is mapped through the JDK at once while the choice (Chronicle Bytes' start-up, about
 * 150 ms) runs on a thread of its own, instead of inside the flush while writers wait for it. Close
 * waits for that choice: a program that exits right after close does not exit inside Chronicle's
 * start-up, whose own thread would die printing "Shutdown in progress". An open, a session without
 * a flush, a read-only open and a JVM whose setting names the memory start no such thread. Each
 * case runs in a fresh JVM ({@link FilterMemoryAheadProgram}) with this JVM's Chronicle flags,
 * since the choice is made once per JVM.
 */
class FilterMemoryAheadTest {
    @TempDir
    Path dir;

    @Test
    void aFlushChoosesAheadAndCloseWaitsForIt() throws Exception {
        // Three fresh JVMs: each closes within milliseconds of its flush, inside the choice.
        for (int i = 0; i < 3; i++) {
            String out = run(dir.resolve("db" + i), "flush");
            assertTrue(out.contains("after open false\n"), out);
            assertTrue(out.contains("get v\n"), "the flushed table answers through its filter: " + out);
            assertTrue(out.contains("after writes true\n"), out);
            assertTrue(out.contains("after close finished true running false\n"), out);
        }
    }

    @Test
    void aSessionWithoutFlushStartsNoThread() throws Exception {
        String out = run(dir.resolve("db"), "write");
        assertTrue(out.contains("after writes false\n"), out);
        assertTrue(out.contains("after close finished false running false\n"), out);
    }

    @Test
    void aNamedFilterMemoryStartsNoThread() throws Exception {
        String out = run(dir.resolve("db"), "flush", "-Dbloomstore.offheap=jdk-read");
        assertTrue(out.contains("get v\n"), out);
        assertTrue(out.contains("after writes false\n"), out);
        assertTrue(out.contains("after close finished false running false\n"), out);
    }

    @Test
    void aReadOnlyOpenStartsNoThread() throws Exception {
        Path db = dir.resolve("db");
        try (Store store = Store.open(db)) {
            store.put("a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8));
            store.flush();
        }
        String out = run(db, "read-only");
        assertTrue(out.contains("after writes false\n"), out);
        assertTrue(out.contains("after close finished false running false\n"), out);
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
