package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;

import java.util.Map;

/**
 * The application settings {@link BloomStoreDslStoreSuppliers} reads to open its stores; each
 * is optional and defaults to {@link StoreOptions#defaults()}:
 * <ul>
 *   <li>{@value #MEMTABLE_BYTES}: memtable size in bytes;
 *   <li>{@value #BLOCK_CACHE_BYTES}: block cache size in bytes (0 disables it);
 *   <li>{@value #BITS_PER_KEY}: filter bits per key.
 * </ul>
 *
 * <p>Thread safety: stateless.
 */
public final class BloomStoreConfig {
    public static final String PREFIX = "bloomstore.";
    public static final String MEMTABLE_BYTES = PREFIX + "memtable.bytes";
    public static final String BLOCK_CACHE_BYTES = PREFIX + "block.cache.bytes";
    public static final String BITS_PER_KEY = PREFIX + "bits.per.key";

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
