package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * A {@link BloomSessionStore} whose aggregates are in Kafka's headers format (the record headers,
 * then the aggregate), for {@code dsl.store.format=HEADERS}. Being a {@link HeadersBytesStore}
 * tells Kafka so: no converting adapter is put in front of it, and changelog records are restored
 * with their headers rebuilt into the value.
 *
 * <p>Thread safety: as {@link BloomSessionStore}.
 */
public final class BloomSessionStoreWithHeaders extends BloomSessionStore implements HeadersBytesStore {
    BloomSessionStoreWithHeaders(String name, String metricsScope, StoreOptions options, long retentionPeriod,
                                 long segmentInterval) {
        super(name, metricsScope, options, retentionPeriod, segmentInterval);
    }
}
