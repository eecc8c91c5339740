package io.bloomstore.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One store command's one-shot latency on one path in one round ({@link OneShotProbe}).
 *
 * <p>Thread safety: immutable.
 *
 * @param command      what ran: {@code get}, {@code get absent}, {@code put}, {@code delete},
 *                     {@code scan --limit 10}, {@code stats}, or {@code jvm} for the JVM floor
 * @param path         {@code launcher}, {@code java -jar} or {@code java -version}
 * @param round        the round, 0 first
 * @param runs         timed runs
 * @param medianMillis median wall time, process start to exit
 * @param p90Millis    90th percentile of the same
 */
public record OneShotResult(String command, String path, int round, int runs, double medianMillis,
        double p90Millis) {

    static OneShotResult of(String command, String path, int round, double[] millis) {
        return new OneShotResult(command, path, round, millis.length, OneShotProbe.percentile(millis, 0.5),
                OneShotProbe.percentile(millis, 0.9));
    }

    /** Per command and path, in first-seen order: the median over rounds of the medians and of the p90s. */
    static List<OneShotResult> mediansOverRounds(List<OneShotResult> all) {
        Map<String, List<OneShotResult>> byKey = new LinkedHashMap<>();
        for (OneShotResult r : all) {
            byKey.computeIfAbsent(r.command() + "\u0000" + r.path(), k -> new ArrayList<>()).add(r);
        }
        List<OneShotResult> out = new ArrayList<>();
        for (List<OneShotResult> rs : byKey.values()) {
            double[] medians = rs.stream().mapToDouble(OneShotResult::medianMillis).toArray();
            double[] p90s = rs.stream().mapToDouble(OneShotResult::p90Millis).toArray();
            OneShotResult first = rs.get(0);
            out.add(new OneShotResult(first.command(), first.path(), -1, first.runs(),
                    OneShotProbe.percentile(medians, 0.5), OneShotProbe.percentile(p90s, 0.5)));
        }
        return out;
    }
}
