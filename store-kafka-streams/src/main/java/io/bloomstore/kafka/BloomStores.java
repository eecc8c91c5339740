package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/**
 * Factories of BloomStore-backed state stores for Kafka Streams, mirroring
 * {@link org.apache.kafka.streams.state.Stores}: pass the supplier to
 * {@code Stores.keyValueStoreBuilder}, {@code Stores.timestampedKeyValueStoreBuilder} or
 * {@code Materialized.as}. For a whole DSL application at once see
 * {@link BloomStoreDslStoreSuppliers}.
 *
 * <p>Thread safety: stateless.
 */
public final class BloomStores {
    private BloomStores() {
    }

    /** A persistent key-value store with {@link StoreOptions#defaults()}. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name) {
        return persistentKeyValueStore(name, StoreOptions.defaults());
    }

    /** A persistent key-value store opened with {@code options}. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name, StoreOptions options) {
        return new BloomStoreSupplier(checkName(name), options, false);
    }

    /**
     * A persistent key-value store for timestamped values (a {@code TimestampedBytesStore}), for
     * {@code Stores.timestampedKeyValueStoreBuilder} and the DSL's tables and aggregations.
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
        return persistentTimestampedKeyValueStore(name, StoreOptions.defaults());
    }

    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name, StoreOptions options) {
        return new BloomStoreSupplier(checkName(name), options, true);
    }

    private static String checkName(String name) {
        if (name == null) {
            throw new NullPointerException("name cannot be null");
        }
        if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("store name must be a non-empty directory name: '" + name + "'");
        }
        return name;
    }
}
