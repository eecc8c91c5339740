package io.bloomstore.kafka;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.internals.WithRetentionPeriod;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DSL applications with windows, sessions and joins on {@link TopologyTestDriver}, run twice on
 * the same input: with BloomStore behind every store ({@link BloomStoreDslStoreSuppliers}) and
 * with Kafka's in-memory stores; every output record (key, value, timestamp, in order) must be the
 * same. The applications: a tumbling windowed count, one emitting final results when windows
 * close, a session-window count, a stream-stream inner
 * and outer join (window stores with duplicates, the outer join's key-value store), and a stream
 * that looks up the current window's count in the windowed count's store (a windowed KStream–KTable
 * lookup). Each runs in the DSL's default store format and in {@code dsl.store.format=HEADERS}.
 * In the BloomStore run, every store must be a BloomStore and no RocksDB file may be in the state
 * directory.
 */
class DslApplicationsTest {
    private static final long SECOND = 1000;

    @TempDir
    Path stateDir;

    private Properties props(String app, boolean bloom, String format) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(bloom ? "bloom" : "memory").toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.DSL_STORE_FORMAT_CONFIG, format);
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, bloom ? BloomStoreDslStoreSuppliers.class
                : BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        p.put(BloomStoreConfig.MEMTABLE_BYTES, 64 * 1024);
        return p;
    }

    /** Looks up the count of the record's key in its current one-minute window. */
    static final class WindowLookup implements Processor<String, String, String, String> {
        private TimestampedWindowStore<String, Long> counts;
        private ProcessorContext<String, String> context;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            counts = context.getStateStore("window-counts");
        }

        @Override
        public void process(Record<String, String> record) {
            long start = record.timestamp() - record.timestamp() % (60 * SECOND);
            ValueAndTimestamp<Long> c = counts.fetch(record.key(), start);
            context.forward(record.withValue(record.value() + ":" + (c == null ? "none" : c.value())));
        }
    }

    private static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> clicks = builder.stream("clicks", Consumed.with(Serdes.String(), Serdes.String()));
        KStream<String, String> views = builder.stream("views", Consumed.with(Serdes.String(), Serdes.String()));
        clicks.groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
                .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofSeconds(30)))
                .count(Materialized.as("window-counts"))
                .toStream((w, c) -> w.key() + "@" + w.window().start())
                .to("window-count-out", Produced.with(Serdes.String(), Serdes.Long()));
        clicks.groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
                .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(30), Duration.ofSeconds(10)))
                .emitStrategy(EmitStrategy.onWindowClose())
                .count(Materialized.as("final-counts"))
                .toStream((w, c) -> w.key() + "@" + w.window().start())
                .to("final-count-out", Produced.with(Serdes.String(), Serdes.Long()));
        clicks.groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
                .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(20), Duration.ofSeconds(10)))
                .count(Materialized.as("session-counts"))
                .toStream((Windowed<String> w, Long c) -> w.key() + "@" + w.window().start() + "-" + w.window().end())
                .to("session-count-out", Produced.with(Serdes.String(), Serdes.Long()));
        JoinWindows window = JoinWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(15), Duration.ofSeconds(5));
        StreamJoined<String, String, String> joined = StreamJoined.with(Serdes.String(), Serdes.String(),
                Serdes.String());
        clicks.join(views, (c, v) -> c + "+" + v, window, joined.withStoreName("inner"))
                .to("inner-join-out", Produced.with(Serdes.String(), Serdes.String()));
        clicks.outerJoin(views, (c, v) -> c + "+" + v, window, joined.withStoreName("outer"))
                .to("outer-join-out", Produced.with(Serdes.String(), Serdes.String()));
        views.process(WindowLookup::new, "window-counts")
                .to("lookup-out", Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private static final List<String> OUTPUTS = List.of("window-count-out", "final-count-out", "session-count-out",
            "inner-join-out",
            "outer-join-out", "lookup-out");

    /**
     * Every output record as "topic key=value@timestamp", topic by topic, in order; then, per
     * store, "retention store=ms": the retention period Kafka's changelog reader resolves through
     * the store's layers ({@link WithRetentionPeriod}), by which it restores an empty windowed
     * store from {@code last record's time − retention} rather than from the beginning.
     */
    private List<String> run(boolean bloom, String format) {
        List<String> out = new ArrayList<>();
        Random rnd = new Random(17);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(), props("dsl-apps", bloom, format),
                Instant.ofEpochMilli(0))) {
            TestInputTopic<String, String> clicks = driver.createInputTopic("clicks", Serdes.String().serializer(),
                    Serdes.String().serializer());
            TestInputTopic<String, String> views = driver.createInputTopic("views", Serdes.String().serializer(),
                    Serdes.String().serializer());
            long time = 0;
            for (int i = 0; i < 1200; i++) {
                time += rnd.nextInt(3) * SECOND / 2;
                // Late records (within and past the grace) make stores drop and reorder windows.
                long t = Math.max(0, time - (rnd.nextInt(10) == 0 ? rnd.nextInt(60) * SECOND : 0));
                String user = "u" + rnd.nextInt(40);
                if (rnd.nextInt(3) == 0) {
                    views.pipeInput(user, "v" + i, Instant.ofEpochMilli(t));
                } else {
                    clicks.pipeInput(user, "c" + i, Instant.ofEpochMilli(t));
                }
            }
            for (String topic : OUTPUTS) {
                TestOutputTopic<String, ?> o = topic.contains("count")
                        ? driver.createOutputTopic(topic, Serdes.String().deserializer(), Serdes.Long().deserializer())
                        : driver.createOutputTopic(topic, Serdes.String().deserializer(), Serdes.String().deserializer());
                o.readRecordsToList().forEach(r -> out.add(topic + " " + r.key() + "=" + r.value() + "@"
                        + r.timestamp()));
            }
            new TreeMap<>(driver.getAllStateStores()).forEach((name, store) ->
                    out.add("retention " + name + "=" + WithRetentionPeriod.resolveRetentionPeriod(store)));
            if (bloom) {
                assertEveryStoreIsABloomStore();
            }
        }
        return out;
    }

    @ParameterizedTest(name = "dsl.store.format={0}")
    @ValueSource(strings = {StreamsConfig.DSL_STORE_FORMAT_DEFAULT, StreamsConfig.DSL_STORE_FORMAT_HEADERS})
    void sameOutputsAsKafkasInMemoryStoresAndNoRocksDb(String format) {
        long t0 = System.nanoTime();
        List<String> expected = run(false, format);
        long t1 = System.nanoTime();
        List<String> actual = run(true, format);
        System.out.printf("DslApplicationsTest %s: in-memory stores %d ms, BloomStores %d ms%n", format,
                (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
        for (String topic : OUTPUTS) {
            long n = expected.stream().filter(s -> s.startsWith(topic + " ")).count();
            assertTrue(n > 100, topic + " has only " + n + " records: the input does not exercise it");
        }
        assertTrue(expected.contains("retention window-counts=" + Duration.ofMinutes(1).plusSeconds(30).toMillis()),
                "Kafka's in-memory window store reports its retention: " + expected);
        WindowStoreContractTest.assertSameList(expected, actual,
                "outputs and retention periods with BloomStore vs in-memory stores");
    }

    /** Checked before the driver closes, since closing it deletes the state directory. */
    private void assertEveryStoreIsABloomStore() {
        assertNoRocksDb(stateDir.resolve("bloom"));
        // The three aggregations, and both window stores of each join plus the outer join's
        // key-value store.
        List<String> stores;
        try (Stream<Path> dirs = Files.list(stateDir.resolve("bloom/dsl-apps/0_0/bloomstore"))) {
            stores = dirs.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertTrue(stores.containsAll(List.of("window-counts", "final-counts", "session-counts")), "stores " + stores);
        assertEquals(5, stores.stream().filter(n -> n.startsWith("inner") || n.startsWith("outer")).count(),
                "join stores " + stores);
        assertEquals(8, stores.size(), "stores " + stores);
    }

    /**
     * Every store directory is a BloomStore's: no RocksDB OPTIONS or IDENTIFIER file anywhere, no
     * {@code rocksdb} directory, and every table ({@code .sst}) is under {@code bloomstore/}.
     */
    static void assertNoRocksDb(Path stateDir) {
        List<String> bloomFiles = new ArrayList<>();
        try (Stream<Path> files = Files.walk(stateDir)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                String rel = "/" + stateDir.relativize(p);
                assertTrue(!name.startsWith("OPTIONS-") && !name.equals("IDENTIFIER") && !name.equals("rocksdb"),
                        "RocksDB file " + rel);
                if (name.endsWith(".sst") || name.startsWith("MANIFEST")) {
                    assertTrue(rel.contains("/bloomstore/"), "table outside a BloomStore: " + rel);
                }
                if (rel.contains("/bloomstore/")) {
                    bloomFiles.add(rel);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertTrue(!bloomFiles.isEmpty(), "no BloomStore files under " + stateDir);
    }
}
