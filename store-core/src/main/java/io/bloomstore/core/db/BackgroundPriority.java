package io.bloomstore.core.db;

import io.bloomstore.core.internal.CompilerThreads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers a flush or compaction thread's scheduling priority once, on Linux: its nice value is set
 * {@code StoreOptions.backgroundNiceness} above the process's main thread's
 * ({@link #lowerCurrentThread}). On a machine
 * whose cores are all busy, the kernel then gives the application's threads (readers, writers)
 * a core first and the background work what is left, instead of an equal share: on 2 processors a
 * reader beside an unpaced writer, a flush and a compaction otherwise waited milliseconds for a
 * core now and then, which was its p99.9. Writers that outrun the background still meet level 0's
 * and the memtables' limits, which hold them until the background catches up.
 *
 * <p>Java has no call for a thread's nice value (thread priorities are ignored on Linux without
 * JVM flags), and the libraries the store may depend on have none either, so the thread runs
 * {@code renice} on its own id ({@code /proc/thread-self}) once, on its first task, off any
 * caller's path: some milliseconds per thread. Where that fails — another system, no
 * {@code renice}, a sandbox — the thread keeps its priority and works as before; the reason is
 * logged at debug level, once.
 *
 * <p>The flush thread waits for the JIT to settle first ({@link #lowerCurrentThreadAfterWarmUp}:
 * once, for the whole JVM, its compilers used at most a quarter of a processor over a second):
 * in a fresh JVM, HotSpot's compiler threads, at the application's priority, take a processor
 * for seconds, a lowered flush got what they and the writer left, and the writer, holding two
 * full memtables, waited for it (a fresh JVM's first 100,000 puts of 1 KiB: 0.53× RocksDB's with
 * the flush lowered from its first task, 0.69× with this; of 100 bytes 0.63× and 0.62×:
 * docs/benchmarks.md). Once the compilers are quiet the flush is lowered as the compactions are,
 * which is what keeps readers' tails beside a writer at RocksDB's or below.
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
    /** How long the compilers are watched before the JIT counts as settled or busy. */
    static final long WARM_UP_WINDOW_NANOS = 1_000_000_000L;
    private static final Object WARM_UP_LOCK = new Object();
    /** The watch's start, {@code {compiler ticks, nanoTime}}; null before the first flush. Guarded by WARM_UP_LOCK. */
    private static long[] warmUpWindow;
    /** Set once the JIT compilers are seen quiet (or absent): for the whole JVM, and for good. */
    private static volatile boolean jitSettled;
    /** For tests: the compilers' ticks to read instead of {@code /proc}'s; null otherwise. */
    static volatile LongSupplier compilerTicksForTest;

    private BackgroundPriority() {
    }

    /**
     * Sets the calling thread's nice value {@code niceness} above the main thread's (at most 19),
     * once per thread; nothing for 0 or off Linux. Threads this one starts later inherit it.
     *
     * @return the thread's nice value afterwards, or {@code Integer.MIN_VALUE} when it was not
     *         changed now (0, not Linux, done before, or it failed)
     */
    static int lowerCurrentThread(int niceness) {
        if (niceness <= 0 || !LINUX || DONE.get() != null) {
            return Integer.MIN_VALUE;
        }
        DONE.set(Boolean.TRUE);
        try {
            Path self = Files.readSymbolicLink(THREAD_SELF);
            String tid = self.getFileName().toString();
            Path stat = Path.of("/proc").resolve(self).resolve("stat");
            // Below the process's main thread, not below this thread: a pool thread inherits the
            // priority of the thread that made it, which may be a lowered background thread.
            int target = Math.min(19, nice(PROCESS_STAT) + niceness);
            if (nice(stat) == target) {
                return Integer.MIN_VALUE;
            }
            // util-linux's renice sets the value given (busybox's adds it: the same from 0).
            Process p = new ProcessBuilder("renice", "-n", Integer.toString(target), "-p", tid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("renice did not finish in 5 s");
            }
            int after = nice(stat);
            if (after != target) {
                throw new IOException("renice left the thread at nice " + after + ", not " + target
                        + " (exit status " + p.exitValue() + ")");
            }
            return after;
        } catch (IOException | RuntimeException e) {
            logOnce(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Integer.MIN_VALUE;
    }

    /**
     * As {@link #lowerCurrentThread}, for a thread whose work the application waits for (the
     * flush): called before each of its tasks, it lowers the thread once the JIT has settled
     * ({@link #jitSettled}); until then it leaves the thread at the application's priority. Where
     * no compiler thread is found (another JVM, {@code -Xint}, no {@code /proc}) the JIT counts as
     * settled, and the thread is lowered at its first task, as by {@link #lowerCurrentThread}.
     *
     * @return as {@link #lowerCurrentThread}
     */
    static int lowerCurrentThreadAfterWarmUp(int niceness) {
        if (niceness <= 0 || !LINUX || DONE.get() != null || !jitSettled()) {
            return Integer.MIN_VALUE;
        }
        return lowerCurrentThread(niceness);
    }

    /**
     * Whether the JIT has settled: its compilers used at most a quarter of one processor over a
     * watch of at least {@value #WARM_UP_WINDOW_NANOS} ns, which the first call starts (a busy watch
     * starts the next). Once true, true for the JVM's life: later stores' flushes are lowered at
     * their first task, as before.
     */
    static boolean jitSettled() {
        if (jitSettled) {
            return true;
        }
        long now = System.nanoTime();
        synchronized (WARM_UP_LOCK) {
            long[] w = warmUpWindow;
            if (jitSettled || (w != null && now - w[1] < WARM_UP_WINDOW_NANOS)) {
                return jitSettled;
            }
            LongSupplier forTest = compilerTicksForTest;
            return watch(forTest == null ? CompilerThreads.ticks() : forTest.getAsLong(), now);
        }
    }

    /**
     * With WARM_UP_LOCK held, or in a test: one look at the compilers, which had used
     * {@code compilerTicks} ({@code -1}: none found, which counts as settled) at {@code now}.
     */
    static boolean watch(long compilerTicks, long now) {
        long[] w = warmUpWindow;
        if (jitSettled || compilerTicks < 0) {
            jitSettled = true;
        } else if (w == null) {
            warmUpWindow = new long[] {compilerTicks, now};
        } else if (now - w[1] >= WARM_UP_WINDOW_NANOS) {
            if (settled(compilerTicks - w[0], now - w[1])) {
                jitSettled = true;
            } else {
                warmUpWindow = new long[] {compilerTicks, now};
            }
        }
        return jitSettled;
    }

    /** For tests: forgets the watch and its result, and reads {@code /proc} again. */
    static void resetWarmUp() {
        synchronized (WARM_UP_LOCK) {
            warmUpWindow = null;
            jitSettled = false;
            compilerTicksForTest = null;
        }
    }

    /** Whether compilers that used {@code ticks} of processor time in {@code nanos} used at most a quarter of one processor. */
    static boolean settled(long ticks, long nanos) {
        return ticks * CompilerThreads.NANOS_PER_TICK * 4 <= nanos;
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
