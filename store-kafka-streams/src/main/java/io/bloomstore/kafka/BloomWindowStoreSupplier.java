package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

import java.util.Objects;

/**
 * Supplies BloomStore-backed window stores ({@link BloomWindowStore}) to Kafka Streams, one per
 * task, in one of Kafka's value formats; made by {@link BloomStores}. The segment interval is
 * Kafka's: {@code max(retention / 2, 60 s)}. Metrics scope {@value #METRICS_SCOPE}.
 *
 * <p>Thread safety: immutable; {@link #get()} may be called from any thread.
 */
public final class BloomWindowStoreSupplier implements WindowBytesStoreSupplier {
    public static final String METRICS_SCOPE = "bloomstore-window";

    private final String name;
    private final StoreOptions options;
    private final long retentionPeriod;
    private final long windowSize;
    private final boolean retainDuplicates;
    private final DslStoreFormat format;

    BloomWindowStoreSupplier(String name, StoreOptions options, long retentionPeriod, long windowSize,
                             boolean retainDuplicates, DslStoreFormat format) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.options = Objects.requireNonNull(options, "options cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.format = Objects.requireNonNull(format, "format cannot be null");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public WindowStore<Bytes, byte[]> get() {
        long interval = segmentIntervalMs();
        return switch (format) {
            case PLAIN -> new BloomWindowStore(name, METRICS_SCOPE, options, retentionPeriod, interval, windowSize,
                    retainDuplicates);
            case TIMESTAMPED -> new BloomTimestampedWindowStore(name, METRICS_SCOPE, options, retentionPeriod, interval,
                    windowSize, retainDuplicates);
            case HEADERS -> new BloomTimestampedWindowStoreWithHeaders(name, METRICS_SCOPE, options, retentionPeriod,
                    interval, windowSize, retainDuplicates);
        };
    }

    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    /** As Kafka's RocksDB window stores: half the retention, at least a minute. */
    @Override
    public long segmentIntervalMs() {
        return Math.max(retentionPeriod / 2, 60_000L);
    }

    @Override
    public long windowSize() {
        return windowSize;
    }

    @Override
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** The value format of the stores. */
    public DslStoreFormat format() {
        return format;
    }

    public StoreOptions options() {
        return options;
    }
}
