package io.bloomstore.cli.streams;

/**
 * One measured run of a streams workload on one engine.
 *
 * <p>Thread safety: immutable.
 *
 * @param events       input events processed (dedup: events; wordcount: words)
 * @param elapsedNanos wall-clock time of piping them all through the topology
 * @param counters     the state store's read counters at the end of the run
 */
record StreamsResult(StreamsWorkload workload, StreamsEngine engine, long events, long elapsedNanos,
                     StoreCounters counters) {
    double eventsPerSecond() {
        return events / (elapsedNanos / 1e9);
    }
}
