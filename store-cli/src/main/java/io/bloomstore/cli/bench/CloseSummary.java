package io.bloomstore.cli.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The closes after one fill of one engine over all rounds: their median and their maximum.
 *
 * <p>Thread safety: immutable.
 *
 * @param engine       the engine
 * @param after        the fill the closes followed
 * @param rounds       closes measured
 * @param medianMillis median over rounds (the mean of the two middle ones for an even count)
 * @param maxMillis    the slowest
 */
public record CloseSummary(String engine, Workload after, int rounds, double medianMillis, double maxMillis) {

    /** One summary per engine and fill, in the order they first appear in {@code closes}. */
    public static List<CloseSummary> of(List<CloseResult> closes) {
        Map<String, List<CloseResult>> groups = new LinkedHashMap<>();
        for (CloseResult c : closes) {
            groups.computeIfAbsent(c.engine() + '\u0000' + c.after().cliName(), k -> new ArrayList<>()).add(c);
        }
        List<CloseSummary> out = new ArrayList<>();
        for (List<CloseResult> group : groups.values()) {
            double[] ms = group.stream().mapToDouble(CloseResult::millis).sorted().toArray();
            int n = ms.length;
            double median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
            CloseResult first = group.get(0);
            out.add(new CloseSummary(first.engine(), first.after(), n, median, Arrays.stream(ms).max().orElse(0)));
        }
        return List.copyOf(out);
    }
}
