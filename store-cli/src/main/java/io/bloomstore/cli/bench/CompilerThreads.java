package io.bloomstore.cli.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The processor time HotSpot's JIT compiler threads have used, read on Linux from
 * {@code /proc/self/task}: the benchmark's cold probe reports them beside the work it measures
 * (the library itself never watches the host JVM).
 *
 * <p>Thread safety: safe for concurrent use (the threads last found are kept under a lock).
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

    /** Readings between two full listings of the process's threads (see {@link #ticks()}). */
    static final int RESCAN_EVERY = 16;
    private static final Object LOCK = new Object();
    /** The compiler threads' ids the last listing found (null before it); guarded by LOCK. */
    private static String[] known;
    /** Readings of {@link #known} since that listing; guarded by LOCK. */
    private static int readsSinceScan;

    private CompilerThreads() {
    }

    /**
     * Processor time (user and system) the compiler threads have used so far, in clock ticks, or
     * -1 when this process has none by their names (another JVM, {@code -Xint}, no {@code /proc}).
     * The process's threads are listed at the first call and every {@value #RESCAN_EVERY}th, or
     * when a compiler thread found before has ended (HotSpot may add and retire them); the calls
     * between read only the compiler threads' own {@code stat}, not one per thread of a process
     * that may have thousands.
     */
    public static long ticks() {
        synchronized (LOCK) {
            if (known != null && known.length > 0 && readsSinceScan < RESCAN_EVERY) {
                readsSinceScan++;
                long sum = 0;
                for (String task : known) {
                    long t = compilerTicks(task);
                    if (t < 0) {
                        return scan();
                    }
                    sum += t;
                }
                return sum;
            }
            return scan();
        }
    }

    /** With LOCK held: lists the process's threads, remembers the compiler threads, sums their ticks. */
    private static long scan() {
        readsSinceScan = 0;
        String[] tasks = TASKS.list();
        if (tasks == null) {
            known = new String[0];
            return -1;
        }
        List<String> found = new ArrayList<>(2);
        long ticks = 0;
        for (String task : tasks) {
            long t = compilerTicks(task);
            if (t >= 0) {
                found.add(task);
                ticks += t;
            }
        }
        known = found.toArray(new String[0]);
        return found.isEmpty() ? -1 : ticks;
    }

    /** The ticks of thread {@code task} when it is a compiler thread, else (or when it has ended) -1. */
    private static long compilerTicks(String task) {
        String stat;
        try {
            stat = new String(Files.readAllBytes(Path.of(TASKS.getPath(), task, "stat")), StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return -1; // the thread ended meanwhile
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open || !(stat.startsWith(C1, open + 1) || stat.startsWith(C2, open + 1))) {
            return -1;
        }
        return ticks(stat, close);
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
