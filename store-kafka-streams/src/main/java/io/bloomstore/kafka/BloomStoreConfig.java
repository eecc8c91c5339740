package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreResources;

import java.util.Map;

/**
 * The application settings {@link BloomStoreDslStoreSuppliers} reads to open its stores; each
 * is optional and defaults to {@link StoreOptions#defaults()}:
 * <ul>
 *   <li>{@value #MEMTABLE_BYTES}: memtable size in bytes;
 *   <li>{@value #BLOCK_CACHE_BYTES}: block cache size in bytes (0 disables it);
 *   <li>{@value #BITS_PER_KEY}: filter bits per key;
 *   <li>{@value #MEMORY_BYTES}: the memory every store of the application instance shares, as
 *       Kafka's {@code BoundedMemoryRocksDBConfig} bounds RocksDB's: a quarter for the memtable
 *       budget, the rest for one block cache ({@link StoreResources}); unset, the stores share the
 *       JVM-wide {@link StoreResources#shared()} (sized from the heap);
 *   <li>{@value #BACKGROUND_THREADS}: compaction threads of that shared pool (flushes get a quarter
 *       as many more, at least one); with {@value #MEMORY_BYTES} only.
 * </ul>
 * Window and session stores' segments are stores of the instance like any other: they share the
 * same resources. {@value #BLOCK_CACHE_BYTES} gives every store a cache of its own instead.
 *
 * <p>Thread safety: stateless.
 */
public final class BloomStoreConfig {
    public static final String PREFIX = "bloomstore.";
    public static final String MEMTABLE_BYTES = PREFIX + "memtable.bytes";
    public static final String BLOCK_CACHE_BYTES = PREFIX + "block.cache.bytes";
    public static final String BITS_PER_KEY = PREFIX + "bits.per.key";
    public static final String MEMORY_BYTES = PREFIX + "memory.bytes";
    public static final String BACKGROUND_THREADS = PREFIX + "background.threads";

    private BloomStoreConfig() {
    }

    /**
     * The store options these settings describe.
     *
     * @throws IllegalArgumentException naming the setting when a value is not a number or is out
     *         of the range {@link StoreOptions} accepts
     */
    public static StoreOptions storeOptions(Map<String, ?> configs) {
        StoreOptions.Builder b = StoreOptions.builder();
        Object memory = configs.get(MEMORY_BYTES);
        Object threads = configs.get(BACKGROUND_THREADS);
        if (memory != null) {
            long bytes = parseLong(MEMORY_BYTES, memory);
            if (bytes < (4L << 20)) {
                throw new IllegalArgumentException(MEMORY_BYTES + " must be at least 4 MiB: " + memory);
            }
            int n = threads == null ? Math.max(2, Runtime.getRuntime().availableProcessors())
                    : (int) parseLong(BACKGROUND_THREADS, threads);
            try {
                b.resources(StoreResources.builder().memtableBudgetBytes(bytes / 4).blockCacheBytes(bytes - bytes / 4)
                        .backgroundThreads(n).build());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid " + PREFIX + "* setting: " + e.getMessage(), e);
            }
        } else if (threads != null) {
            throw new IllegalArgumentException(BACKGROUND_THREADS + " needs " + MEMORY_BYTES
                    + ": without it the stores share the JVM-wide resources");
        }
        Object memtable = configs.get(MEMTABLE_BYTES);
        if (memtable != null) {
            b.memtableBytes(parseLong(MEMTABLE_BYTES, memtable));
        }
        Object cache = configs.get(BLOCK_CACHE_BYTES);
        if (cache != null) {
            b.blockCacheBytes(parseLong(BLOCK_CACHE_BYTES, cache));
        }
        Object bits = configs.get(BITS_PER_KEY);
        if (bits != null) {
            double v = parseDouble(BITS_PER_KEY, bits);
            if (!(v > 0 && v <= 64)) {
                throw new IllegalArgumentException(BITS_PER_KEY + " must be in (0, 64]: " + bits);
            }
            b.bitsPerKey(v);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + PREFIX + "* setting: " + e.getMessage(), e);
        }
    }

    private static long parseLong(String key, Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number of bytes: " + value, e);
        }
    }

    private static double parseDouble(String key, Object value) {
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        try {
            return Double.parseDouble(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number: " + value, e);
        }
    }
}
