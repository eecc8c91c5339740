package io.bloomstore.core;

import static io.bloomstore.core.StoreOptions.BACKGROUND_NICENESS_PROPERTY;
import static io.bloomstore.core.StoreOptions.DEFAULT_MAX_KEY_BYTES;
import static io.bloomstore.core.StoreOptions.DEFAULT_MEMTABLE_FILTER_RATIO;
import static io.bloomstore.core.StoreOptions.MAX_BACKGROUND_JOBS;
import static io.bloomstore.core.StoreOptions.MAX_BACKGROUND_NICENESS;
import static io.bloomstore.core.StoreOptions.MAX_MEMTABLE_BYTES;
import static io.bloomstore.core.StoreOptions.MAX_MEMTABLE_FILTER_RATIO;
import static io.bloomstore.core.StoreOptions.MAX_WAL_BUFFER_BYTES;
import static io.bloomstore.core.StoreOptions.MEMTABLE_FILTER_RATIO_PROPERTY;
import static io.bloomstore.core.StoreOptions.MIN_MAX_OPEN_FILES;
import static io.bloomstore.core.StoreOptions.UNBOUNDED_OPEN_FILES;
import static io.bloomstore.core.StoreSettings.DERIVED;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.table.TableOptions;

/**
 * The rules {@link StoreOptions} holds its settings to: each setting's range and the combinations
 * it refuses (checked when options are built, before a store sees them), the defaults that a
 * system property may set, and what building derives from the settings (the parallel compaction
 * trigger left to it, the tables' settings, the filter policy left unset). Kept apart from the
 * options' values ({@link StoreSettings}) and builder, as RocksDB keeps its options' validation
 * and sanitising apart from their declaration.
 *
 * <p>Thread safety: stateless.
 */
final class StoreOptionsRules {
    private StoreOptionsRules() {
    }

    /**
     * Refuses a builder's settings when they are out of range or do not go together.
     *
     * @throws IllegalArgumentException naming the setting and what it must be
     */
    static void check(StoreSettings b) {
        if (b.ttl != null && (b.ttl.isNegative() || b.ttl.isZero())) {
            throw new IllegalArgumentException("ttl must be positive (null for none): " + b.ttl);
        }
        if (b.ttl != null && b.mergeOperator != null) {
            throw new IllegalArgumentException("a store takes a ttl or a mergeOperator, not both: merge operands carry"
                    + " no write time to expire by (docs/library.md, \"Merge operators, TTL and compaction filters\")");
        }
        if (b.clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        if (b.maxOpenFiles != UNBOUNDED_OPEN_FILES && b.maxOpenFiles < MIN_MAX_OPEN_FILES) {
            throw new IllegalArgumentException("maxOpenFiles must be " + UNBOUNDED_OPEN_FILES + " (unbounded) or at"
                    + " least " + MIN_MAX_OPEN_FILES + ": " + b.maxOpenFiles);
        }
        if (b.memtableBytes < 1024 || b.memtableBytes > MAX_MEMTABLE_BYTES) {
            throw new IllegalArgumentException("memtableBytes must be between 1024 and " + MAX_MEMTABLE_BYTES
                    + " (1 GiB): " + b.memtableBytes);
        }
        if (!(b.memtableFilterRatio >= 0 && b.memtableFilterRatio <= MAX_MEMTABLE_FILTER_RATIO)) {
            throw new IllegalArgumentException("memtableFilterRatio must be between 0 and " + MAX_MEMTABLE_FILTER_RATIO
                    + ": " + b.memtableFilterRatio);
        }
        if (b.maxManifestBytes < 1024) {
            throw new IllegalArgumentException("maxManifestBytes must be at least 1024: " + b.maxManifestBytes);
        }
        if (b.maxBackgroundJobs < 1 || b.maxBackgroundJobs > MAX_BACKGROUND_JOBS) {
            throw new IllegalArgumentException("maxBackgroundJobs must be between 1 and " + MAX_BACKGROUND_JOBS + ": "
                    + b.maxBackgroundJobs);
        }
        if (b.backgroundNiceness < 0 || b.backgroundNiceness > MAX_BACKGROUND_NICENESS) {
            throw new IllegalArgumentException("backgroundNiceness must be between 0 and " + MAX_BACKGROUND_NICENESS + ": "
                    + b.backgroundNiceness);
        }
        if (b.walRecovery == null) {
            throw new IllegalArgumentException("walRecovery must not be null");
        }
        if (b.blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes must not be negative: " + b.blockCacheBytes);
        }
        if (b.maxKeyBytes < 1 || b.maxKeyBytes > DEFAULT_MAX_KEY_BYTES) {
            throw new IllegalArgumentException("maxKeyBytes must be between 1 and " + DEFAULT_MAX_KEY_BYTES + ": "
                    + b.maxKeyBytes);
        }
        if (b.maxValueBytes < 0 || b.maxValueBytes > 1 << 30) {
            throw new IllegalArgumentException("maxValueBytes must be between 0 and 1 GiB: " + b.maxValueBytes);
        }
        if (b.l0CompactionTrigger < 1 || b.l0SlowdownTrigger < b.l0CompactionTrigger
                || b.l0StopTrigger < b.l0SlowdownTrigger) {
            throw new IllegalArgumentException("level-0 triggers must satisfy 1 ≤ compaction (" + b.l0CompactionTrigger
                    + ") ≤ slowdown (" + b.l0SlowdownTrigger + ") ≤ stop (" + b.l0StopTrigger + ")");
        }
        if (b.levelSizeRatio < 2 || b.levelSizeRatio > 1000) {
            throw new IllegalArgumentException("levelSizeRatio must be between 2 and 1000: " + b.levelSizeRatio);
        }
        if (b.baseLevelBytes < 1024 || b.targetFileBytes < 1024) {
            throw new IllegalArgumentException("baseLevelBytes and targetFileBytes must be at least 1024: "
                    + b.baseLevelBytes + ", " + b.targetFileBytes);
        }
        if (b.filterKind == FilterKind.RANGE || b.filterKind == FilterKind.ROSETTA) {
            throw new IllegalArgumentException("filterKind " + b.filterKind.cliName() + " is a range filter, built from"
                    + " key values: give it with rangeFilter(...), and a membership filter kind (bloom, blocked, fuse, ...)"
                    + " or null as filterKind");
        }
        if (b.filterKind != null && !(b.bitsPerKey > 0 && b.bitsPerKey <= 64)) {
            throw new IllegalArgumentException("bitsPerKey must be in (0, 64]: " + b.bitsPerKey);
        }
        if (b.delayedWriteRate < 1024) {
            throw new IllegalArgumentException("delayedWriteRate must be at least 1024 bytes/s: " + b.delayedWriteRate);
        }
        if (b.bytesPerSync < 0) {
            throw new IllegalArgumentException("bytesPerSync must not be negative (0 turns writeback off): "
                    + b.bytesPerSync);
        }
        if (b.walBufferBytes < 0 || b.walBufferBytes > MAX_WAL_BUFFER_BYTES) {
            throw new IllegalArgumentException("walBufferBytes must be in [0, " + MAX_WAL_BUFFER_BYTES
                    + "] (0: every write reaches the operating system before it returns): " + b.walBufferBytes);
        }
        if (b.parallelCompactionTrigger < DERIVED) {
            throw new IllegalArgumentException("parallelCompactionTrigger must not be negative: " + b.parallelCompactionTrigger);
        }
        if (b.jmxName != null && b.jmxName.isBlank()) {
            throw new IllegalArgumentException("jmxName must not be blank (null turns JMX off)");
        }
    }

    /**
     * The settings built options keep: a copy of the builder's ({@link StoreSettings#snapshot()})
     * whose {@code parallelCompactionTrigger}, where left {@link StoreSettings#DERIVED}, is half
     * way from {@code l0SlowdownTrigger} to {@code l0StopTrigger} when the JVM sees at most 2
     * processors, else 0. Call after {@link #check}.
     */
    static StoreSettings resolve(StoreSettings b) {
        StoreSettings s = b.snapshot();
        s.parallelCompactionTrigger = b.parallelCompactionTrigger != DERIVED ? b.parallelCompactionTrigger
                : Runtime.getRuntime().availableProcessors() <= 2 ? (b.l0SlowdownTrigger + b.l0StopTrigger) / 2 : 0;
        return s;
    }

    /**
     * The settings new tables are written with: block size, compression, filter kind and bits per
     * key, prefix extractor and range filter. Without a filter, their bits per key stay
     * {@link TableOptions#DEFAULT_BITS_PER_KEY}.
     *
     * @throws IllegalArgumentException when {@link TableOptions} refuses a setting
     */
    static TableOptions tableOptions(StoreSettings s) {
        TableOptions t = TableOptions.defaults().withBlockSize(s.blockSize).withCompression(s.compression);
        return (s.filterKind == null ? t.withoutFilter() : t.withFilter(s.filterKind, s.bitsPerKey))
                .withPrefixExtractor(s.prefixExtractor).withRangeFilter(s.rangeFilter);
    }

    /** The filter policy set, or, when none is, {@link FilterPolicy#uniform} at the filter kind and bits per key. */
    static FilterPolicy filterPolicy(StoreSettings s) {
        return s.filterPolicy != null ? s.filterPolicy : FilterPolicy.uniform(s.filterKind, s.bitsPerKey);
    }

    /**
     * {@code backgroundNiceness}'s default: the system property {@value StoreOptions#BACKGROUND_NICENESS_PROPERTY}
     * when set (for an application that cannot reach its stores' options, and for measuring both
     * ways), else 0. A value that is not a whole number is refused when options are built.
     */
    static int defaultBackgroundNiceness() {
        String v = System.getProperty(BACKGROUND_NICENESS_PROPERTY);
        if (v == null) {
            return 0;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + BACKGROUND_NICENESS_PROPERTY + " must be a whole number from 0 to "
                    + MAX_BACKGROUND_NICENESS + ": '" + v + "'");
        }
    }

    /**
     * {@code memtableFilterRatio}'s default: the system property {@value StoreOptions#MEMTABLE_FILTER_RATIO_PROPERTY}
     * when set (so that a benchmark's child JVMs compare with and without the filter), else
     * {@link StoreOptions#DEFAULT_MEMTABLE_FILTER_RATIO}.
     *
     * @throws IllegalArgumentException when the property is not a number
     */
    static double defaultMemtableFilterRatio() {
        String v = System.getProperty(MEMTABLE_FILTER_RATIO_PROPERTY);
        if (v == null) {
            return DEFAULT_MEMTABLE_FILTER_RATIO;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + MEMTABLE_FILTER_RATIO_PROPERTY + " must be a number from 0 to "
                    + MAX_MEMTABLE_FILTER_RATIO + ": '" + v + "'");
        }
    }
}
