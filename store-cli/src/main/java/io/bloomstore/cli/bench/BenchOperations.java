package io.bloomstore.cli.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What every worker of a benchmark run shares ({@link BenchRunner}, {@link BenchWorker}): the
 * settings, the keys and values, the choosers of lookups, fillrandom's order, and readlatest's
 * inserts. All of it follows from the configured seed, so every engine does the same operations.
 *
 * <p>Thread safety: the runner sets {@link #filledRandomly} and makes {@link #randomOrder()} before
 * it starts a workload's workers (the executor's hand-off publishes both); the inserts' counters
 * are atomic; the rest is immutable.
 */
final class BenchOperations {
    final BenchConfig config;
    final ScanConfig scans;
    final KeySpace keySpace;
    final ValueSource values;
    final KeyChooser chooser;
    /** readlatest's choice, whatever {@code --distribution} says: YCSB's workload D is defined by it. */
    final KeyChooser latestChooser;
    /** Whether the loaded store was filled in random order ({@link #randomOrder()}) rather than by index. */
    boolean filledRandomly;
    /** readlatest's inserts: reserved, and completed (the newest keys lookups may ask for). */
    final AtomicLong latestReserved = new AtomicLong();
    final AtomicLong latestInserted = new AtomicLong();
    private int[] randomOrder;

    BenchOperations(BenchConfig config, ScanConfig scans) {
        this.config = config;
        this.scans = scans;
        this.keySpace = new KeySpace(config.keys(), config.keySize(), scans);
        this.values = new ValueSource(config.valueSize(), config.seed());
        this.chooser = KeyChooser.of(config.distribution(), config.keys());
        this.latestChooser = KeyChooser.of(BenchConfig.Distribution.LATEST, config.keys());
    }

    /** fillrandom's order, made before its workers start (by the measuring thread only). */
    int[] randomOrder() {
        if (randomOrder == null) {
            randomOrder = keySpace.shuffledIndices(config.seed());
        }
        return randomOrder;
    }
}
