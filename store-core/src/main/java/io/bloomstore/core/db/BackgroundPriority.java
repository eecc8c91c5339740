package io.bloomstore.core.db;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers a flush, compaction or reclaim thread's scheduling priority once, on Linux, when the
 * application asks for it ({@code StoreOptions.backgroundNiceness} above 0; off by default): its
 * nice value is set that far above the process's main thread's ({@link #lowerCurrentThread}). On a
 * machine whose cores are all busy, the kernel then gives the application's threads (readers,
 * writers) a core first and the background work what is left (docs/benchmarks.md). Writers that
 * outrun the background still meet level 0's and the memtables' limits, which hold them until the
 * background catches up.
 *
 * <p>No process is started: on Java 22 and later the thread calls the C library's
 * {@code setpriority} itself ({@link ThreadNice}, from the multi-release jar), once per pool thread,
 * never per task; on Java 17-21 it cannot, and keeps the application's priority. Either way a
 * failure leaves the thread as it was, and the reason is logged at debug level, once.
 *
 * <p>Threads a lowered thread makes inherit its nice value: the threads writers wait on (the WAL's
 * syncs, seals and writeback) are made only by the application's threads ({@code DbState.SYNCER}).
 *
 * <p>Thread safety: safe for concurrent use; each thread changes only itself.
 */
final class BackgroundPriority {
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(BackgroundPriority.class);
    }

    private static final boolean LINUX = System.getProperty("os.name", "").startsWith("Linux");
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");
    /** The process's main thread (its thread group leader). */
    private static final Path PROCESS_STAT = Path.of("/proc/self/stat");
    /** Threads already lowered (or tried): a pool thread runs many tasks. */
    private static final ThreadLocal<Boolean> DONE = new ThreadLocal<>();
    private static volatile boolean failureLogged;

    private BackgroundPriority() {
    }

    /**
     * Sets the calling thread's nice value {@code niceness} above the main thread's (at most 19),
     * once per thread; nothing for 0, off Linux, or before Java 22. Threads this one starts later
     * inherit it.
     *
     * @return the thread's nice value afterwards, or {@code Integer.MIN_VALUE} when it was not
     *         changed now (0, not Linux, not supported, done before, or it failed)
     */
    static int lowerCurrentThread(int niceness) {
        if (niceness <= 0 || !LINUX || DONE.get() != null) {
            return Integer.MIN_VALUE;
        }
        DONE.set(Boolean.TRUE);
        try {
            if (!ThreadNice.supported()) {
                ThreadNice.set(0);
            }
            Path stat = THREAD_SELF.resolve("stat");
            // Below the process's main thread, not below this thread: a pool thread inherits the
            // priority of the thread that made it, which may be a lowered background thread.
            int target = Math.min(19, nice(PROCESS_STAT) + niceness);
            if (nice(stat) == target) {
                return Integer.MIN_VALUE;
            }
            ThreadNice.set(target);
            int after = nice(stat);
            if (after != target) {
                throw new IOException("setpriority left the thread at nice " + after + ", not " + target);
            }
            return after;
        } catch (IOException | RuntimeException e) {
            logOnce(e);
        }
        return Integer.MIN_VALUE;
    }

    /** The nice value in a {@code /proc/.../stat} file: the 19th field, counted after the parenthesised name. */
    static int nice(Path stat) throws IOException {
        String text = new String(Files.readAllBytes(stat), StandardCharsets.US_ASCII);
        int at = text.lastIndexOf(')');
        if (at < 0) {
            throw new IOException("no command name in " + stat);
        }
        // Fields 3.. follow the name; nice is field 19, the 17th of them.
        String[] fields = text.substring(at + 2).trim().split(" ");
        if (fields.length < 17) {
            throw new IOException("too few fields in " + stat);
        }
        try {
            return Integer.parseInt(fields[16]);
        } catch (NumberFormatException e) {
            throw new IOException("no nice value in " + stat + ": " + fields[16], e);
        }
    }

    private static void logOnce(Exception e) {
        if (!failureLogged) {
            failureLogged = true;
            Log.LOG.debug("background threads keep their scheduling priority: {}", e.toString());
        }
    }
}
