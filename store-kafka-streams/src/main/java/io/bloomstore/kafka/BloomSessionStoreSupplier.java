package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

import java.util.Objects;

/**
 * Supplies BloomStore-backed session stores ({@link BloomSessionStore}) to Kafka Streams, one per
 * task, plain or with headers; made by {@link BloomStores}. The segment interval is Kafka's:
 * {@code max(retention / 2, 60 s)}. Metrics scope {@value #METRICS_SCOPE}.
 *
 * <p>Thread safety: immutable; {@link #get()} may be called from any thread.
 */
public final class BloomSessionStoreSupplier implements SessionBytesStoreSupplier {
    public static final String METRICS_SCOPE = "bloomstore-session";

    private final String name;
    private final StoreOptions options;
    private final long retentionPeriod;
    private final boolean withHeaders;

    BloomSessionStoreSupplier(String name, StoreOptions options, long retentionPeriod, boolean withHeaders) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.options = Objects.requireNonNull(options, "options cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.withHeaders = withHeaders;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SessionStore<Bytes, byte[]> get() {
        return withHeaders
                ? new BloomSessionStoreWithHeaders(name, METRICS_SCOPE, options, retentionPeriod, segmentIntervalMs())
                : new BloomSessionStore(name, METRICS_SCOPE, options, retentionPeriod, segmentIntervalMs());
    }

    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    /** As Kafka's RocksDB session stores: half the retention, at least a minute. */
    @Override
    public long segmentIntervalMs() {
        return Math.max(retentionPeriod / 2, 60_000L);
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** Whether the stores keep aggregates in Kafka's headers format. */
    public boolean withHeaders() {
        return withHeaders;
    }

    public StoreOptions options() {
        return options;
    }
}
