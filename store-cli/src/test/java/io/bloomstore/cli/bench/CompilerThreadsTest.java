package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The JIT compiler threads' processor time, from their {@code stat} lines in {@code /proc}. */
class CompilerThreadsTest {

    @Test
    void ticksAreUtimePlusStimeAfterTheName() {
        String stat = "77 (C2 CompilerThre) S 1 7 7 0 -1 1077936192 10 0 0 0 123 45 0 0 20 0 1 0 99 1 2\n";
        assertEquals(168, CompilerThreads.ticks(stat, stat.lastIndexOf(')')));
        String spaced = "78 (a (b) c) S 1 7 7 0 -1 1077936192 10 0 0 0 5 6 0 0 20 0 1 0 99 1 2\n";
        assertEquals(11, CompilerThreads.ticks(spaced, spaced.lastIndexOf(')')));
        assertEquals(-1, CompilerThreads.ticks("77 (x) S 1 2", 5), "too few fields");
        assertEquals(-1, CompilerThreads.ticks("77 (x) S 1 7 7 0 -1 1 10 0 0 0 a b 0", 5), "not numbers");
    }

    @Test
    void thisJvmsCompilerThreadsAreFoundAtEveryReading() {
        String vm = System.getProperty("java.vm.name", "");
        assumeTrue(System.getProperty("os.name", "").startsWith("Linux")
                && (vm.contains("HotSpot") || vm.contains("Server VM"))
                && !ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-Xint"),
                "needs HotSpot's compiler threads on Linux");
        long before = CompilerThreads.ticks();
        assertTrue(before >= 0, "this JVM's C1 and C2 threads are found: " + before);
        // Readings of the threads found before and the listings every RESCAN_EVERY readings keep
        // finding them (their sum may drop only when HotSpot retires a compiler thread it added).
        for (int i = 0; i < 2 * CompilerThreads.RESCAN_EVERY + 1; i++) {
            long now = CompilerThreads.ticks();
            assertTrue(now >= 0, "reading " + i + ": " + now);
        }
        assertTrue(CompilerThreads.nanos() >= 0, "and in nanoseconds");
    }
}
