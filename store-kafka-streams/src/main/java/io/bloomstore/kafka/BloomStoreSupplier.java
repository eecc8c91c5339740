package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Objects;

/**
 * Supplies BloomStore-backed key-value stores to Kafka Streams, one per task; made by
 * {@link BloomStores}. Metrics scope {@value #METRICS_SCOPE}.
 *
 * <p>Thread safety: immutable; {@link #get()} may be called from any thread.
 */
public final class BloomStoreSupplier implements KeyValueBytesStoreSupplier {
    public static final String METRICS_SCOPE = "bloomstore";

    private final String name;
    private final StoreOptions options;
    private final boolean timestamped;

    BloomStoreSupplier(String name, StoreOptions options, boolean timestamped) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.options = Objects.requireNonNull(options, "options cannot be null");
        this.timestamped = timestamped;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return timestamped
                ? new BloomTimestampedKeyValueStore(name, METRICS_SCOPE, options)
                : new BloomKeyValueStore(name, METRICS_SCOPE, options);
    }

    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    /** The options every store of this supplier is opened with. */
    public StoreOptions options() {
        return options;
    }

    public boolean timestamped() {
        return timestamped;
    }
}
