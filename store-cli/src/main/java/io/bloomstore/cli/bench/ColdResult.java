package io.bloomstore.cli.bench;

import java.util.Locale;

/**
 * One engine's cold start, measured in a fresh JVM by {@link ColdProbe}: what one-shot command
 * line users and short-lived jobs see, with no warm-up and the JIT compiler still at work.
 *
 * <p>Thread safety: immutable.
 *
 * @param engine         the engine
 * @param round          the round, 0 first
 * @param ops            operations in each of the two phases
 * @param startupMillis  from the JVM's start to the store being open (class loading, native library, open)
 * @param fillOpsPerSec  the JVM's first {@code ops} operations: random puts into an empty store
 * @param readOpsPerSec  the next {@code ops}: random lookups of the keys just written (mostly in the memtable
 *                       and level 0)
 * @param fillCpuMillis  processor time of the whole process during the fill phase: the measuring thread's
 *                       plus the JIT compiler's, the collector's and the engine's background threads'
 * @param readCpuMillis  the same during the lookups
 * @param fillThreadCpuMillis processor time of the measuring thread alone during the fill phase
 * @param readThreadCpuMillis the same during the lookups
 * @param fillJitCpuMillis processor time of the JIT compiler threads during the fill phase (HotSpot on
 *                       Linux), -1 where unknown: what a native engine does not spend
 * @param readJitCpuMillis the same during the lookups
 */
public record ColdResult(String engine, int round, long ops, double startupMillis, double fillOpsPerSec,
        double readOpsPerSec, double fillCpuMillis, double readCpuMillis, double fillThreadCpuMillis,
        double readThreadCpuMillis, double fillJitCpuMillis, double readJitCpuMillis) {

    /** {@code process/thread/jit} milliseconds of a phase for a table cell; the JIT's as n/a where unknown. */
    static String cpuCell(double process, double thread, double jit, String separator) {
        return String.format(Locale.ROOT, "%,.0f%s%,.0f%s%s", process, separator, thread, separator,
                jit < 0 ? "n/a" : String.format(Locale.ROOT, "%,.0f", jit));
    }
}
