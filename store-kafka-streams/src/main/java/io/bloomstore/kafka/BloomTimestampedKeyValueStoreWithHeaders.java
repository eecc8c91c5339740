package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * A {@link BloomKeyValueStore} whose values are in Kafka's headers format (the record headers, the
 * timestamp, then the value), for {@code dsl.store.format=HEADERS} and
 * {@code Stores.timestampedKeyValueStoreWithHeadersBuilder}. Being a {@link HeadersBytesStore}
 * tells Kafka so: no converting adapter is put in front of it, and changelog records are restored
 * with their headers and timestamp rebuilt into the value.
 *
 * <p>Thread safety: as {@link BloomKeyValueStore}.
 */
public final class BloomTimestampedKeyValueStoreWithHeaders extends BloomKeyValueStore implements HeadersBytesStore {
    BloomTimestampedKeyValueStoreWithHeaders(String name, String metricsScope, StoreOptions options) {
        super(name, metricsScope, options);
    }
}
