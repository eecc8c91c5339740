package io.bloomstore.cli.bench;

import java.util.EnumMap;
import java.util.Map;

/**
 * Where one engine's wall-clock time went over all rounds of a run, so that a long run (many
 * keys, many rounds) can be planned and its harness overhead seen: the untimed warm-up, the
 * cold-start and open child JVMs, the measured workloads (a fill included), the untimed loads
 * before reads, and settling (flush and background compaction before the reads).
 *
 * <p>Thread safety: not thread-safe; the runner's thread adds to it.
 */
public final class TimeSpent {
    /** A kind of work the runner does. */
    public enum Phase { WARM_UP, COLD_PROBE, LOAD, SETTLE, MEASURED, OPEN_PROBE }

    private final String engine;
    private final Map<Phase, Long> nanos = new EnumMap<>(Phase.class);

    public TimeSpent(String engine) {
        this.engine = engine;
    }

    public String engine() {
        return engine;
    }

    void add(Phase phase, long elapsedNanos) {
        nanos.merge(phase, elapsedNanos, Long::sum);
    }

    /** Seconds spent in {@code phase}. */
    public double seconds(Phase phase) {
        return nanos.getOrDefault(phase, 0L) / 1e9;
    }

    /** Seconds spent in all phases. */
    public double totalSeconds() {
        return nanos.values().stream().mapToLong(Long::longValue).sum() / 1e9;
    }
}
