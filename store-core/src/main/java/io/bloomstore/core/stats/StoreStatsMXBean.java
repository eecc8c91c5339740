package io.bloomstore.core.stats;

/**
 * The statistics a store registers as a JMX MXBean when {@code StoreOptions.jmxName} is set,
 * under {@code io.bloomstore:type=Store,name=NAME}. Each attribute is read live from the store's
 * counters; the meanings are those of {@code StoreStats} (this open) and {@code CumulativeStats}
 * (the {@code Cumulative*} attributes, since the store was created).
 *
 * <p>Thread safety: attributes may be read from any thread.
 */
public interface StoreStatsMXBean {
    long getGets();

    long getTableLookups();

    long getFilterNegatives();

    long getFilterPositives();

    long getFilterTruePositives();

    double getMeasuredFpr();

    double getConfiguredFpr();

    long getDataBlockReads();

    long getBytesRead();

    long getBlockCacheHits();

    long getBlockCacheMisses();

    long getFlushes();

    long getCompactions();

    double getWriteAmplification();

    long getWriteSlowdowns();

    long getWriteStops();

    int getTotalFiles();

    long getFilterBytes();

    String getFilterMemory();

    String getFilterPolicy();

    long getCumulativeGets();

    long getCumulativeFilterNegatives();

    long getCumulativeDataBlockReads();
}
