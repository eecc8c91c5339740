package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link BloomKeyValueStore} whose values are in Kafka's timestamped format (an 8-byte
 * timestamp, then the value). Being a {@link TimestampedBytesStore} tells Kafka so: it adds no
 * converting wrapper on reads, and it restores changelog records with their timestamp already
 * prepended.
 *
 * <p>Thread safety: as {@link BloomKeyValueStore}.
 */
public final class BloomTimestampedKeyValueStore extends BloomKeyValueStore implements TimestampedBytesStore {
    BloomTimestampedKeyValueStore(String name, String metricsScope, StoreOptions options) {
        super(name, metricsScope, options);
    }
}
