package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The store's filter counters as Kafka Streams store-level metrics (group
 * {@code stream-state-metrics}, tags {@code thread-id}, {@code task-id} and
 * {@code bloomstore-state-id}, beside Kafka's own put/get rates), recorded at level INFO:
 * <ul>
 *   <li>{@code filter-negatives}: lookups a table's filter answered "absent", i.e. data-block
 *       reads saved;
 *   <li>{@code filter-measured-fpr}: measured false-positive rate of the filters;
 *   <li>{@code data-block-reads}: data blocks read from files (the disk accesses);
 *   <li>{@code block-cache-hits}, {@code gets}: block-cache hits and point lookups.
 * </ul>
 * Each gauge reads a fresh {@link StoreStats} when the metric is read; a closed store reads 0.
 *
 * <p>Thread safety: safe; gauges may be read by any metrics reporter thread.
 */
final class BloomStoreMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(BloomStoreMetrics.class);

    private final StreamsMetricsImpl streamsMetrics;
    private final List<MetricName> names = new ArrayList<>();

    private BloomStoreMetrics(StreamsMetricsImpl streamsMetrics) {
        this.streamsMetrics = streamsMetrics;
    }

    /** Registers the gauges, or returns null when the context's metrics are not Kafka's own. */
    static BloomStoreMetrics register(StateStoreContext context, String scope, String storeName,
                                      Supplier<Store> store) {
        if (!(context.metrics() instanceof StreamsMetricsImpl impl)) {
            LOG.debug("store {}: metrics registry is {}, BloomStore metrics not registered", storeName,
                    context.metrics() == null ? null : context.metrics().getClass().getName());
            return null;
        }
        BloomStoreMetrics m = new BloomStoreMetrics(impl);
        String taskId = context.taskId().toString();
        m.add(taskId, scope, storeName, "filter-negatives",
                "Lookups a table's filter answered absent: data-block reads saved", store, s -> s.filterNegatives());
        m.add(taskId, scope, storeName, "filter-measured-fpr",
                "Measured false-positive rate of the tables' filters", store, StoreStats::measuredFpr);
        m.add(taskId, scope, storeName, "data-block-reads",
                "Data blocks read from the store's files: the disk accesses", store, s -> s.dataBlockReads());
        m.add(taskId, scope, storeName, "block-cache-hits",
                "Data-block lookups served by the block cache", store, s -> s.blockCacheHits());
        m.add(taskId, scope, storeName, "gets", "Point lookups", store, s -> s.gets());
        return m;
    }

    private void add(String taskId, String scope, String storeName, String metric, String description,
                     Supplier<Store> store, ToDoubleFunction<StoreStats> value) {
        Gauge<Double> gauge = (config, now) -> {
            Store s = store.get();
            return s == null ? 0.0 : value.applyAsDouble(s.stats());
        };
        names.add(streamsMetrics.addStoreLevelMutableMetric(taskId, scope, storeName, metric, description,
                Sensor.RecordingLevel.INFO, gauge));
    }

    void remove() {
        for (MetricName n : names) {
            streamsMetrics.removeStoreLevelMetric(n);
        }
        names.clear();
    }
}
