package io.bloomstore.kafka;

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
import java.util.function.ToLongFunction;

/**
 * The store's filter counters as Kafka Streams store-level metrics (group
 * {@code stream-state-metrics}, tags {@code thread-id}, {@code task-id} and
 * {@code bloomstore-state-id}, beside Kafka's own put/get rates), recorded at level INFO:
 * <ul>
 *   <li>{@code filter-negatives}: lookups a table's filter answered "absent", i.e. data-block
 *       reads saved;
 *   <li>{@code filter-measured-fpr}: measured false-positive rate of the filters;
 *   <li>{@code data-block-reads}: data blocks read from files (the disk accesses);
 *   <li>{@code prefix-filter-negatives}: tables a scan confined to one key skipped through their
 *       prefix filters (window and session fetches of one key), reading none of their blocks;
 *   <li>{@code block-cache-hits}, {@code gets}: block-cache hits and point lookups.
 * </ul>
 * A window or session store has one BloomStore per time segment: its gauges sum over the live
 * segments. Each gauge reads fresh {@link StoreStats} when the metric is read; a closed store reads 0.
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
                                      Supplier<List<StoreStats>> store) {
        if (!(context.metrics() instanceof StreamsMetricsImpl impl)) {
            LOG.debug("store {}: metrics registry is {}, BloomStore metrics not registered", storeName,
                    context.metrics() == null ? null : context.metrics().getClass().getName());
            return null;
        }
        BloomStoreMetrics m = new BloomStoreMetrics(impl);
        String taskId = context.taskId().toString();
        m.add(taskId, scope, storeName, "filter-negatives",
                "Lookups a table's filter answered absent: data-block reads saved", store,
                l -> sum(l, StoreStats::filterNegatives));
        m.add(taskId, scope, storeName, "filter-measured-fpr",
                "Measured false-positive rate of the tables' filters", store, BloomStoreMetrics::measuredFpr);
        m.add(taskId, scope, storeName, "data-block-reads",
                "Data blocks read from the store's files: the disk accesses", store,
                l -> sum(l, StoreStats::dataBlockReads));
        m.add(taskId, scope, storeName, "prefix-filter-negatives",
                "Tables a one-key scan skipped through their prefix filters", store,
                l -> sum(l, StoreStats::prefixUseful));
        m.add(taskId, scope, storeName, "block-cache-hits",
                "Data-block lookups served by the block cache", store, l -> sum(l, StoreStats::blockCacheHits));
        m.add(taskId, scope, storeName, "gets", "Point lookups", store, l -> sum(l, StoreStats::gets));
        return m;
    }

    private void add(String taskId, String scope, String storeName, String metric, String description,
                     Supplier<List<StoreStats>> store, ToDoubleFunction<List<StoreStats>> value) {
        Gauge<Double> gauge = (config, now) -> {
            List<StoreStats> s = store.get();
            return s == null ? 0.0 : value.applyAsDouble(s);
        };
        names.add(streamsMetrics.addStoreLevelMutableMetric(taskId, scope, storeName, metric, description,
                Sensor.RecordingLevel.INFO, gauge));
    }

    private static double sum(List<StoreStats> stats, ToLongFunction<StoreStats> counter) {
        return stats.stream().mapToLong(counter).sum();
    }

    /** (positives − true positives) / (that + negatives) over all the stores, as StoreStats defines it. */
    private static double measuredFpr(List<StoreStats> stats) {
        double falsePositives = sum(stats, StoreStats::filterPositives) - sum(stats, StoreStats::filterTruePositives);
        double asked = falsePositives + sum(stats, StoreStats::filterNegatives);
        return asked == 0 ? 0.0 : falsePositives / asked;
    }

    void remove() {
        for (MetricName n : names) {
            streamsMetrics.removeStoreLevelMetric(n);
        }
        names.clear();
    }
}
