package io.bloomstore.core.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The processor time HotSpot's JIT compiler threads have used, read on Linux from
 * {@code /proc/self/task}: the flush thread waits for them to settle before it lowers its priority,
 * and the benchmark's cold probe reports them beside the work it measures. Internal: not part of
 * the API.
 *
 * <p>Thread safety: stateless.
 */
public final class CompilerThreads {
    /**
     * Nanoseconds per clock tick of {@code /proc}'s processor times: Linux reports them in
     * {@code USER_HZ}, 100 on every architecture the JDK runs on.
     */
    public static final long NANOS_PER_TICK = 10_000_000L;
    /** This process's threads. */
    private static final File TASKS = new File("/proc/self/task");
    /** HotSpot's compiler threads, as the kernel keeps their names (the first 15 bytes). */
    private static final String C1 = "C1 CompilerThre";
    private static final String C2 = "C2 CompilerThre";

    private CompilerThreads() {
    }

    /**
     * Processor time (user and system) the compiler threads have used so far, in clock ticks, or
     * -1 when this process has none by their names (another JVM, {@code -Xint}, no {@code /proc}).
     */
    public static long ticks() {
        String[] tasks = TASKS.list();
        if (tasks == null) {
            return -1;
        }
        long ticks = 0;
        boolean found = false;
        for (String task : tasks) {
            String stat;
            try {
                stat = new String(Files.readAllBytes(Path.of(TASKS.getPath(), task, "stat")), StandardCharsets.US_ASCII);
            } catch (IOException | RuntimeException e) {
                continue; // the thread ended meanwhile
            }
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            if (open < 0 || close < open || !(stat.startsWith(C1, open + 1) || stat.startsWith(C2, open + 1))) {
                continue;
            }
            long t = ticks(stat, close);
            if (t >= 0) {
                ticks += t;
                found = true;
            }
        }
        return found ? ticks : -1;
    }

    /** {@link #ticks()} in nanoseconds, or -1. */
    public static long nanos() {
        long t = ticks();
        return t < 0 ? -1 : t * NANOS_PER_TICK;
    }

    /**
     * utime plus stime (fields 14 and 15) of a {@code stat} line whose parenthesised name closes at
     * {@code close}; -1 when they cannot be read.
     */
    static long ticks(String stat, int close) {
        String[] fields = stat.substring(Math.min(stat.length(), close + 2)).trim().split(" ");
        if (fields.length < 13) {
            return -1;
        }
        try {
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
