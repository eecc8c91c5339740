package io.bloomstore.cli.bench;

/**
 * What an engine's filters cost in memory in one round, read from the engine's own statistics
 * ({@link BenchEngine#filterBitsPerKey()}) once the loaded store has settled for the reads.
 *
 * <p>Thread safety: immutable.
 *
 * @param engine     the engine
 * @param round      the round, from 0
 * @param bitsPerKey filter bytes × 8 over the live tables' entries; NaN when the engine cannot say
 */
public record FilterCost(String engine, int round, double bitsPerKey) {
}
