package io.bloomstore.cli.streams;

import java.util.Map;

/**
 * One measured run of {@code bench-streams --broker}: one application on one engine.
 *
 * <p>Thread safety: immutable.
 *
 * @param events         input records processed
 * @param elapsedNanos   from the instance reaching RUNNING to the last input record processed
 * @param nanosPerOp     Kafka's own store metrics: mean latency in ns per store operation
 *                       ({@code get}, {@code put}, {@code fetch} ...), over every store of the
 *                       application, weighted by each store's operation count
 * @param restored       changelog records restored after the instance's state directory was wiped
 * @param restoreNanos   from the first store's restore start to the last store's restore end;
 *                       0 when restore was not measured
 */
record BrokerResult(BrokerWorkload workload, StreamsEngine engine, long events, long elapsedNanos,
                    Map<String, Double> nanosPerOp, long restored, long restoreNanos) {
    BrokerResult {
        nanosPerOp = Map.copyOf(nanosPerOp);
    }

    double eventsPerSecond() {
        return events / (elapsedNanos / 1e9);
    }

    /** Mean ns of {@code op} per call, NaN when the application made none. */
    double nanos(String op) {
        return nanosPerOp.getOrDefault(op, Double.NaN);
    }
}
