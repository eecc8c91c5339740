package io.bloomstore.cli.streams;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Runs one workload on one engine through {@link TopologyTestDriver}: pipes every event, reads
 * the output (and the store's changelog) as it goes, times the whole loop, and reads the store's
 * counters before the driver closes. The output is checked: dedup must emit exactly the distinct
 * ids, so a run that measured a wrong store fails instead of reporting a figure.
 *
 * <p>Thread safety: one run per instance, on one thread.
 */
final class StreamsRun {
    private static final int DRAIN_EVERY = 10_000;
    private static final String APP = "bench-streams";

    private StreamsRun() {
    }

    /**
     * @param changelog when not null, receives the store's changelog records, for the restore
     *                  benchmark
     */
    static StreamsResult run(StreamsWorkload workload, StreamsEngine engine, StreamsEvents events, Path stateDir,
                             List<ConsumerRecord<byte[], byte[]>> changelog) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        // Kafka 5.0's default, set now: otherwise every application warns that it is off.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        engine.configure(props);
        String[] records = events.records();
        long emitted = 0;
        long elapsed;
        StoreCounters counters;
        String changelogTopic = APP + "-" + workload.storeName() + "-changelog";
        try (TopologyTestDriver driver = new TopologyTestDriver(workload.topology(engine), props, Instant.EPOCH)) {
            TestInputTopic<String, String> in = driver.createInputTopic(workload.inputTopic(),
                    new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, String> out = driver.createOutputTopic(workload.outputTopic(),
                    new StringDeserializer(), new StringDeserializer());
            TestOutputTopic<byte[], byte[]> log = driver.createOutputTopic(changelogTopic,
                    new ByteArrayDeserializer(), new ByteArrayDeserializer());
            boolean dedup = workload == StreamsWorkload.DEDUP;
            long start = System.nanoTime();
            for (int i = 0; i < records.length; i++) {
                if (dedup) {
                    in.pipeInput(records[i], "payload");
                } else {
                    in.pipeInput(null, records[i]);
                }
                if ((i + 1) % DRAIN_EVERY == 0 || i == records.length - 1) {
                    emitted += out.getQueueSize();
                    out.readRecordsToList();
                    drainChangelog(log, changelog);
                }
            }
            elapsed = System.nanoTime() - start;
            counters = engine == StreamsEngine.BLOOMSTORE
                    ? bloomStoreCounters(driver.metrics(), workload.storeName())
                    : RocksDbStatistics.counters(workload.storeName());
            if (counters == null) {
                throw new IllegalStateException("no counters for the " + engine.cliName() + " store "
                        + workload.storeName() + ": the store is not the engine's");
            }
        }
        long expected = workload == StreamsWorkload.DEDUP ? events.unique()
                : (long) records.length * StreamsEvents.WORDS_PER_LINE;
        if (emitted != expected) {
            throw new IllegalStateException(workload.cliName() + " on " + engine.cliName() + " emitted " + emitted
                    + " records, expected " + expected);
        }
        long inputEvents = workload == StreamsWorkload.DEDUP ? records.length
                : (long) records.length * StreamsEvents.WORDS_PER_LINE;
        return new StreamsResult(workload, engine, inputEvents, elapsed, counters);
    }

    private static void drainChangelog(TestOutputTopic<byte[], byte[]> log, List<ConsumerRecord<byte[], byte[]>> sink) {
        if (sink == null) {
            log.readRecordsToList();
            return;
        }
        for (TestRecord<byte[], byte[]> r : log.readRecordsToList()) {
            sink.add(new ConsumerRecord<>("changelog", 0, sink.size(), r.key(), r.value()));
        }
    }

    private static StoreCounters bloomStoreCounters(Map<MetricName, ? extends Metric> metrics, String store) {
        long gets = -1;
        long reads = -1;
        long negatives = -1;
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName n = e.getKey();
            if (!"stream-state-metrics".equals(n.group()) || !store.equals(n.tags().get("bloomstore-state-id"))) {
                continue;
            }
            long v = ((Number) e.getValue().metricValue()).longValue();
            switch (n.name()) {
                case "gets" -> gets = v;
                case "data-block-reads" -> reads = v;
                case "filter-negatives" -> negatives = v;
                default -> {
                }
            }
        }
        return gets < 0 || reads < 0 || negatives < 0 ? null : new StoreCounters(gets, reads, negatives);
    }

    static List<ConsumerRecord<byte[], byte[]>> newChangelog() {
        return new ArrayList<>();
    }
}
