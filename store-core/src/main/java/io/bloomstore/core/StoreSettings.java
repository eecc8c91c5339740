package io.bloomstore.core;

import static io.bloomstore.core.StoreOptions.DEFAULT_MAX_KEY_BYTES;
import static io.bloomstore.core.StoreOptions.DEFAULT_MAX_OPEN_FILES;
import static io.bloomstore.core.StoreOptions.DEFAULT_MAX_VALUE_BYTES;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.table.TableOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The values of a store's settings, one field each, starting at their defaults: what a
 * {@link StoreOptions.Builder} fills in, and, copied at build, what the {@link StoreOptions} keep.
 * The public classes hold only the settings' methods and documentation, as RocksDB keeps its
 * options' values for a running database ({@code ImmutableDBOptions}) apart from the options
 * struct users fill in; {@link StoreOptionsRules} checks the values and resolves what building
 * derives.
 *
 * <p>Thread safety: not thread-safe. A builder's settings are written by the builder's thread; a
 * built options object's are a copy of its own ({@link #snapshot()}), complete before its
 * constructor returns, reached through a final field and never written again.
 */
final class StoreSettings {
    /** {@code parallelCompactionTrigger}'s default: derived from the processors and level-0 triggers at build. */
    static final int DERIVED = -1;

    boolean createIfMissing = true;
    long memtableBytes = 4L << 20;
    /** Set by {@link #defaults()}: a system property may give it. */
    double memtableFilterRatio;
    int blockSize = TableOptions.DEFAULT_BLOCK_SIZE;
    long blockCacheBytes = 32L << 20;
    /** Whether {@code blockCacheBytes} was set: else the store uses its resources' shared cache. */
    boolean ownBlockCache;
    /** Null: {@link StoreResources#shared()}. */
    StoreResources resources;
    Compression compression = Compression.LZ4;
    FilterKind filterKind = FilterKind.RIBBON;
    double bitsPerKey = TableOptions.DEFAULT_BITS_PER_KEY;
    int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
    int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
    /** Null: uniform at {@code filterKind} and {@code bitsPerKey}. */
    FilterPolicy filterPolicy;
    int l0CompactionTrigger = 4;
    int l0SlowdownTrigger = 20;
    int l0StopTrigger = 36;
    long delayedWriteRate = 16L << 20;
    long bytesPerSync = 1L << 20;
    int walBufferBytes;
    int levelSizeRatio = 10;
    long baseLevelBytes = 256L << 20;
    long targetFileBytes = 8L << 20;
    boolean autoCompaction = true;
    int maxBackgroundJobs = 2;
    /** Set by {@link #defaults()}: a system property may give it. */
    int backgroundNiceness;
    int parallelCompactionTrigger = DERIVED;
    WalRecovery walRecovery = WalRecovery.TOLERATE_TORN_TAIL;
    long maxManifestBytes = 64L << 20;
    int maxOpenFiles = DEFAULT_MAX_OPEN_FILES;
    boolean directReads;
    PrefixExtractor prefixExtractor;
    RangeFilterOptions rangeFilter;
    String jmxName;
    MergeOperator mergeOperator;
    CompactionFilter compactionFilter;
    Duration ttl;
    Clock clock = Clock.systemUTC();
    /** A builder's own map; in a built options object's settings, an unmodifiable copy. */
    Map<String, KeyspaceOptions> keyspaceOptions = new HashMap<>();

    private StoreSettings() {
    }

    /**
     * Every setting at its default. The two a system property may set are read now, the memtable
     * filter's first, so a malformed property fails the builder's creation.
     *
     * @throws IllegalArgumentException when one of those properties is not a number
     */
    static StoreSettings defaults() {
        StoreSettings s = new StoreSettings();
        s.memtableFilterRatio = StoreOptionsRules.defaultMemtableFilterRatio();
        s.backgroundNiceness = StoreOptionsRules.defaultBackgroundNiceness();
        return s;
    }

    /**
     * A copy of these settings for the options being built from them, so that the builder may go
     * on: the keyspaces' options in an unmodifiable map. Reads no system property.
     */
    StoreSettings snapshot() {
        StoreSettings s = new StoreSettings();
        s.copyValues(this);
        s.keyspaceOptions = Map.copyOf(keyspaceOptions);
        return s;
    }

    /**
     * Sets every setting to {@code from}'s (a built options object's, for its
     * {@link StoreOptions#toBuilder()}); the keyspaces' options are added to this builder's map.
     */
    void setAll(StoreSettings from) {
        copyValues(from);
        keyspaceOptions.putAll(from.keyspaceOptions);
    }

    /** Every setting but the keyspaces' options. */
    private void copyValues(StoreSettings from) {
        createIfMissing = from.createIfMissing;
        memtableBytes = from.memtableBytes;
        memtableFilterRatio = from.memtableFilterRatio;
        blockSize = from.blockSize;
        blockCacheBytes = from.blockCacheBytes;
        ownBlockCache = from.ownBlockCache;
        resources = from.resources;
        compression = from.compression;
        filterKind = from.filterKind;
        bitsPerKey = from.bitsPerKey;
        maxKeyBytes = from.maxKeyBytes;
        maxValueBytes = from.maxValueBytes;
        filterPolicy = from.filterPolicy;
        l0CompactionTrigger = from.l0CompactionTrigger;
        l0SlowdownTrigger = from.l0SlowdownTrigger;
        l0StopTrigger = from.l0StopTrigger;
        delayedWriteRate = from.delayedWriteRate;
        bytesPerSync = from.bytesPerSync;
        walBufferBytes = from.walBufferBytes;
        levelSizeRatio = from.levelSizeRatio;
        baseLevelBytes = from.baseLevelBytes;
        targetFileBytes = from.targetFileBytes;
        autoCompaction = from.autoCompaction;
        maxBackgroundJobs = from.maxBackgroundJobs;
        backgroundNiceness = from.backgroundNiceness;
        parallelCompactionTrigger = from.parallelCompactionTrigger;
        walRecovery = from.walRecovery;
        maxManifestBytes = from.maxManifestBytes;
        maxOpenFiles = from.maxOpenFiles;
        directReads = from.directReads;
        prefixExtractor = from.prefixExtractor;
        rangeFilter = from.rangeFilter;
        jmxName = from.jmxName;
        mergeOperator = from.mergeOperator;
        compactionFilter = from.compactionFilter;
        ttl = from.ttl;
        clock = from.clock;
    }

    /**
     * {@link StoreOptions#toString()}'s text for these settings as built, with the tables' settings
     * and the filter policy building derived from them.
     */
    String describe(TableOptions tableOptions, FilterPolicy resolvedFilterPolicy) {
        return "StoreOptions[createIfMissing=" + createIfMissing + ", memtableBytes=" + memtableBytes
                + ", memtableFilterRatio=" + memtableFilterRatio
                + ", blockCacheBytes=" + blockCacheBytes + ", maxKeyBytes=" + maxKeyBytes + ", maxValueBytes="
                + maxValueBytes + ", " + tableOptions + ", filterPolicy=" + resolvedFilterPolicy + ", l0Triggers="
                + l0CompactionTrigger + "/" + l0SlowdownTrigger + "/" + l0StopTrigger + ", delayedWriteRate=" + delayedWriteRate
                + ", bytesPerSync=" + bytesPerSync + ", walBufferBytes=" + walBufferBytes
                + ", levelSizeRatio="
                + levelSizeRatio + ", baseLevelBytes=" + baseLevelBytes + ", targetFileBytes=" + targetFileBytes
                + ", autoCompaction=" + autoCompaction + ", maxBackgroundJobs=" + maxBackgroundJobs
                + ", backgroundNiceness=" + backgroundNiceness
                + ", parallelCompactionTrigger=" + parallelCompactionTrigger + ", walRecovery=" + walRecovery
                + ", maxManifestBytes=" + maxManifestBytes + ", maxOpenFiles=" + maxOpenFiles
                + ", directReads=" + directReads + ", jmxName=" + jmxName + "]";
    }
}
