package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link BloomWindowStore} whose values are in Kafka's timestamped format (an 8-byte timestamp,
 * then the value). Being a {@link TimestampedBytesStore} tells Kafka so: it adds no converting
 * wrapper, and restores changelog records with their timestamp prepended.
 *
 * <p>Thread safety: as {@link BloomWindowStore}.
 */
public final class BloomTimestampedWindowStore extends BloomWindowStore implements TimestampedBytesStore {
    BloomTimestampedWindowStore(String name, String metricsScope, StoreOptions options, long retentionPeriod,
                                long segmentInterval, long windowSize, boolean retainDuplicates) {
        super(name, metricsScope, options, retentionPeriod, segmentInterval, windowSize, retainDuplicates);
    }
}
