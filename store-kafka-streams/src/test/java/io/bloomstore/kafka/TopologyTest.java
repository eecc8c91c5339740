package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DSL and Processor API applications on {@link TopologyTestDriver} with BloomStore behind every
 * state store ({@code dsl.store.suppliers.class}): a word count, a KTable–KStream join and an
 * event deduplication, each checked against the answer computed in the test.
 */
class TopologyTest {
    @TempDir
    Path stateDir;

    private Properties props() {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "topology-test");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, BloomStoreDslStoreSuppliers.class);
        p.put(BloomStoreConfig.MEMTABLE_BYTES, 64 * 1024);
        return p;
    }

    @Test
    void wordCount() throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("lines", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase().split("\\W+")))
                .filter((k, w) -> !w.isEmpty())
                .groupBy((k, w) -> w, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream().to("word-counts", Produced.with(Serdes.String(), Serdes.Long()));
        Random rnd = new Random(7);
        String[] vocabulary = new String[500];
        for (int i = 0; i < vocabulary.length; i++) {
            vocabulary[i] = "w" + i;
        }
        Map<String, Long> expected = new HashMap<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props())) {
            TestInputTopic<String, String> in = driver.createInputTopic("lines",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, Long> out = driver.createOutputTopic("word-counts",
                    Serdes.String().deserializer(), Serdes.Long().deserializer());
            for (int line = 0; line < 3000; line++) {
                StringBuilder sb = new StringBuilder();
                for (int w = 0; w < 5; w++) {
                    String word = vocabulary[(int) Math.min(vocabulary.length - 1, Math.abs(rnd.nextGaussian()) * 80)];
                    sb.append(word).append(w % 2 == 0 ? " " : ", ");
                    expected.merge(word, 1L, Long::sum);
                }
                in.pipeInput(null, sb.toString());
            }
            Map<String, Long> last = out.readKeyValuesToMap();
            assertEquals(expected, last);
            KeyValueStore<String, ValueAndTimestamp<Long>> counts = driver.getTimestampedKeyValueStore("counts");
            for (Map.Entry<String, Long> e : expected.entrySet()) {
                assertEquals(e.getValue(), counts.get(e.getKey()).value(), e.getKey());
            }
            assertBloomStore("counts");
            assertFilterMetrics(driver.metrics(), "counts");
        }
    }

    @Test
    void tableStreamJoin() {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, String> users = builder.table("users", Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.as("users-store"));
        KStream<String, String> clicks = builder.stream("clicks", Consumed.with(Serdes.String(), Serdes.String()));
        clicks.join(users, (page, region) -> page + "@" + region)
                .to("enriched", Produced.with(Serdes.String(), Serdes.String()));
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props())) {
            TestInputTopic<String, String> userIn = driver.createInputTopic("users",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestInputTopic<String, String> clickIn = driver.createInputTopic("clicks",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = driver.createOutputTopic("enriched",
                    Serdes.String().deserializer(), Serdes.String().deserializer());
            Map<String, String> table = new HashMap<>();
            Random rnd = new Random(11);
            int expectedJoins = 0;
            for (int i = 0; i < 4000; i++) {
                String user = "u" + rnd.nextInt(400);
                if (rnd.nextInt(4) == 0) {
                    String region = rnd.nextInt(10) == 0 ? null : "r" + rnd.nextInt(5);
                    userIn.pipeInput(user, region);
                    if (region == null) {
                        table.remove(user);
                    } else {
                        table.put(user, region);
                    }
                } else {
                    String page = "p" + i;
                    clickIn.pipeInput(user, page);
                    String region = table.get(user);
                    if (region != null) {
                        expectedJoins++;
                        KeyValue<String, String> got = out.readKeyValue();
                        assertEquals(KeyValue.pair(user, page + "@" + region), got);
                    }
                    assertTrue(out.isEmpty(), "a click for a user not in the table joins nothing");
                }
            }
            assertTrue(expectedJoins > 1000, "joins " + expectedJoins);
            assertBloomStore("users-store");
        }
    }

    /** Keeps the first event of each id, drops repeats: the topology of the streams benchmark. */
    static final class Dedup implements Processor<String, String, String, String> {
        private KeyValueStore<String, Long> seen;
        private ProcessorContext<String, String> context;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            seen = context.getStateStore("seen");
        }

        @Override
        public void process(Record<String, String> record) {
            if (seen.get(record.key()) == null) {
                seen.put(record.key(), record.timestamp());
                context.forward(record);
            }
        }
    }

    @Test
    void deduplication() {
        Topology topology = new Topology();
        topology.addSource("events", Serdes.String().deserializer(), Serdes.String().deserializer(), "events");
        topology.addProcessor("dedup", Dedup::new, "events");
        topology.addStateStore(Stores.keyValueStoreBuilder(BloomStores.persistentKeyValueStore("seen",
                        StoreOptions.builder().memtableBytes(64 * 1024).build()),
                Serdes.String(), Serdes.Long()), "dedup");
        topology.addSink("unique", "unique-events", Serdes.String().serializer(), Serdes.String().serializer(), "dedup");
        Random rnd = new Random(5);
        Set<String> ids = new HashSet<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props())) {
            TestInputTopic<String, String> in = driver.createInputTopic("events",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = driver.createOutputTopic("unique-events",
                    Serdes.String().deserializer(), Serdes.String().deserializer());
            int unique = 0;
            for (int i = 0; i < 20_000; i++) {
                String id = rnd.nextInt(10) == 0 && unique > 0 ? "id" + rnd.nextInt(unique) : "id" + unique++;
                in.pipeInput(id, "payload" + i);
                ids.add(id);
            }
            List<KeyValue<String, String>> emitted = out.readKeyValuesToList();
            assertEquals(ids.size(), emitted.size());
            assertEquals(ids, new HashSet<>(emitted.stream().map(kv -> kv.key).toList()));
            assertBloomStore("seen");
            Map<MetricName, ? extends Metric> metrics = driver.metrics();
            double negatives = metricValue(metrics, "seen", "filter-negatives");
            assertTrue(negatives > 0, "new ids skip tables through their filters: filter-negatives " + negatives);
        }
    }

    private void assertBloomStore(String store) {
        Path dir = stateDir.resolve("topology-test").resolve("0_0").resolve("bloomstore").resolve(store);
        assertTrue(Files.isDirectory(dir), "BloomStore directory " + dir);
        try (Stream<Path> files = Files.list(stateDir.resolve("topology-test").resolve("0_0"))) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().equals("rocksdb")), "no RocksDB store");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertFilterMetrics(Map<MetricName, ? extends Metric> metrics, String store) {
        for (String name : List.of("filter-negatives", "filter-measured-fpr", "data-block-reads")) {
            double v = metricValue(metrics, store, name);
            assertTrue(v >= 0, name + " " + v);
        }
    }

    private static double metricValue(Map<MetricName, ? extends Metric> metrics, String store, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("stream-state-metrics")
                        && store.equals(e.getKey().tags().get("bloomstore-state-id")))
                .map(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no metric " + name + " for store " + store
                        + " among " + metrics.keySet().stream().filter(n -> n.group().equals("stream-state-metrics"))
                        .map(n -> n.name() + n.tags()).toList()));
    }
}
