package io.bloomstore.cli.bench;

/**
 * How long an engine took to close right after a workload that wrote (a fill, updaterandom,
 * readwhilewriting): the store is closed as soon as the workload's last operation returns, with its memtable unflushed and background compaction likely running, the
 * moment a short-lived job or a service shutting down sees. BloomStore cancels a running
 * compaction; RocksDB's close stops its background work as it does by default.
 *
 * <p>Thread safety: immutable.
 *
 * @param engine the engine
 * @param round  the round, 0 first
 * @param after  the writing workload that had just finished
 * @param millis wall-clock milliseconds of the close call
 */
public record CloseResult(String engine, int round, Workload after, double millis) {
}
