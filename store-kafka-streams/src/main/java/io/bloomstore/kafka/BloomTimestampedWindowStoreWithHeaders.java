package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.state.HeadersBytesStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link BloomWindowStore} whose values are in Kafka's headers format (the record headers, the
 * timestamp, then the value), for {@code dsl.store.format=HEADERS}. Being a
 * {@link HeadersBytesStore} tells Kafka so: no converting adapter is put in front of it, and
 * changelog records are restored with their headers and timestamp rebuilt into the value.
 *
 * <p>Thread safety: as {@link BloomWindowStore}.
 */
public final class BloomTimestampedWindowStoreWithHeaders extends BloomWindowStore
        implements TimestampedBytesStore, HeadersBytesStore {
    BloomTimestampedWindowStoreWithHeaders(String name, String metricsScope, StoreOptions options,
                                           long retentionPeriod, long segmentInterval, long windowSize,
                                           boolean retainDuplicates) {
        super(name, metricsScope, options, retentionPeriod, segmentInterval, windowSize, retainDuplicates);
    }
}
