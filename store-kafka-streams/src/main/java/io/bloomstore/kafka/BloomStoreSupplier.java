package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Objects;

/**
 * Supplies BloomStore-backed key-value stores to Kafka Streams, one per task, in one of Kafka's
 * value formats: plain, timestamped or with headers; made by {@link BloomStores}. Metrics scope
 * {@value #METRICS_SCOPE}.
 *
 * <p>Thread safety: immutable; {@link #get()} may be called from any thread.
 */
public final class BloomStoreSupplier implements KeyValueBytesStoreSupplier {
    public static final String METRICS_SCOPE = "bloomstore";

    private final String name;
    private final StoreOptions options;
    private final DslStoreFormat format;

    BloomStoreSupplier(String name, StoreOptions options, DslStoreFormat format) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.options = Objects.requireNonNull(options, "options cannot be null");
        this.format = Objects.requireNonNull(format, "format cannot be null");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return switch (format) {
            case PLAIN -> new BloomKeyValueStore(name, METRICS_SCOPE, options);
            case TIMESTAMPED -> new BloomTimestampedKeyValueStore(name, METRICS_SCOPE, options);
            case HEADERS -> new BloomTimestampedKeyValueStoreWithHeaders(name, METRICS_SCOPE, options);
        };
    }

    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    /** The options every store of this supplier is opened with. */
    public StoreOptions options() {
        return options;
    }

    /** The value format of the stores: plain, timestamped or with headers. */
    public DslStoreFormat format() {
        return format;
    }
}
