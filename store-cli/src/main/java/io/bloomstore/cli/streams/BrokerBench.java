package io.bloomstore.cli.streams;

import io.bloomstore.cli.Json;
import io.bloomstore.cli.bench.ChildJvm;
import io.bloomstore.kafka.BloomStoreDslStoreSuppliers;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The broker mode of {@code bloomstore bench-streams}: a single-node KRaft broker on loopback,
 * started by Kafka's own test kit, and real {@link KafkaStreams} instances (one stream thread) of
 * the {@link BrokerWorkload} applications on each engine. Each workload's input is produced once;
 * every run is a fresh application id reading it from the start, so every engine and round sees
 * the same records. A run times the instance from RUNNING to its last input record processed,
 * reads Kafka's own store metrics ({@code metrics.recording.level=DEBUG}, a sample window longer
 * than the run so the averages cover all of it), then closes the instance, wipes its state
 * directory and times a new instance restoring the stores from their changelogs. With
 * {@link #exactlyOnce(boolean)} the applications run under {@code exactly_once_v2} with
 * {@code enable.transactional.statestores} on: both engines' stores are then transactional (Kafka's
 * RocksDB stores too), committing every 100 ms.
 *
 * <p>Thread safety: one bench per thread; {@link #close()} stops the broker.
 */
final class BrokerBench implements AutoCloseable {
    private static final String STATE_METRICS = "stream-state-metrics";
    private static final String LATENCY_AVG = "-latency-avg";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaClusterTestKit cluster;
    private final Path root;
    private final int partitions;
    private int apps;
    private boolean exactlyOnce;

    private BrokerBench(KafkaClusterTestKit cluster, Path root, int partitions) {
        this.cluster = cluster;
        this.root = root;
        this.partitions = partitions;
    }

    /**
     * Starts the broker; state directories go under {@code root}. {@code quiet}: the test kit's
     * own prints to standard output while it formats the broker's storage are dropped.
     */
    static BrokerBench start(Path root, int partitions, boolean quiet) throws Exception {
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        PrintStream stdout = System.out;
        try {
            if (quiet) {
                System.setOut(new PrintStream(OutputStream.nullOutputStream()));
            }
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        } finally {
            System.setOut(stdout);
        }
        return new BrokerBench(cluster, root, partitions);
    }

    String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Runs the applications under exactly_once_v2 with transactional state stores (Kafka 4.4's KIP-892). */
    void exactlyOnce(boolean on) {
        exactlyOnce = on;
    }

    /**
     * Creates the workload's topics and writes its input; returns the records the input topics
     * hold, read back from the broker, so a run waits for exactly what is there.
     */
    long produce(BrokerWorkload workload, BrokerWorkload.Event[] events) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (String t : workload.inputTopics()) {
            topics.add(new NewTopic(t, partitions, (short) 1));
        }
        topics.add(new NewTopic(workload.outputTopic(), partitions, (short) 1));
        try (Admin admin = cluster.admin()) {
            admin.createTopics(topics).all().get();
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        // One request in flight and long timeouts: on a loaded machine a retried batch must
        // neither fail the input nor reorder it.
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000);
        long t0 = System.currentTimeMillis() - events.length - 60_000;
        List<String> inputs = workload.inputTopics();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (BrokerWorkload.Event e : events) {
                producer.send(new ProducerRecord<>(inputs.get(e.topic()), null, t0 + e.timeOffsetMs(), e.key(), "payload"),
                        (metadata, error) -> {
                            if (error != null) {
                                failure.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("could not write the " + workload.cliName() + " input", failure.get());
        }
        long held = 0;
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (String t : inputs) {
                for (int i = 0; i < partitions; i++) {
                    ends.put(new TopicPartition(t, i), OffsetSpec.latest());
                }
            }
            for (ListOffsetsResult.ListOffsetsResultInfo info : admin.listOffsets(ends).all().get().values()) {
                held += info.offset();
            }
        }
        if (held != events.length) {
            throw new IllegalStateException("the " + workload.cliName() + " input topics hold " + held
                    + " records, " + events.length + " were written");
        }
        return held;
    }

    /** Runs {@code workload} on {@code engine} over its {@code events} input records. */
    BrokerResult run(BrokerWorkload workload, StreamsEngine engine, long events, boolean restore) throws Exception {
        String app = "bench-" + workload.cliName() + "-" + engine.cliName() + "-" + apps++;
        Path dir = root.resolve(app);
        long elapsed;
        Map<String, Double> nanos;
        KafkaStreams streams = new KafkaStreams(workload.topology(engine), config(app, engine, dir.resolve("a")));
        AtomicLong runningAt = new AtomicLong();
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                runningAt.compareAndSet(0, System.nanoTime());
            }
        });
        try {
            streams.start();
            long timeoutSeconds = Math.max(180, events / 500);
            await(workload.cliName() + " on " + engine.cliName() + " to process " + events + " records", timeoutSeconds,
                    streams, () -> processed(streams) >= events);
            long done = System.nanoTime();
            elapsed = done - runningAt.get();
            nanos = nanosPerOp(streams.metrics(), engine);
            if (processed(streams) != events) {
                throw new IllegalStateException(workload.cliName() + " on " + engine.cliName() + " processed "
                        + processed(streams) + " records, expected " + events);
            }
        } finally {
            streams.close(leaving());
        }
        long restored = 0;
        long restoreNanos = 0;
        if (restore) {
            StreamsBenchCommand.deleteRecursively(dir.resolve("a"));
            RestoreTimer timer = new RestoreTimer();
            KafkaStreams again = new KafkaStreams(workload.topology(engine), config(app, engine, dir.resolve("a")));
            again.setGlobalStateRestoreListener(timer);
            try {
                again.start();
                int expected = storesPerPartition(workload) * partitions;
                await("restore of " + workload.cliName() + " on " + engine.cliName(), 600, again,
                        () -> timer.ended() >= expected);
                restored = timer.restored();
                restoreNanos = timer.nanos();
            } finally {
                again.close(leaving());
            }
        }
        StreamsBenchCommand.deleteRecursively(dir);
        return new BrokerResult(workload, engine, events, elapsed, nanos, restored, restoreNanos);
    }

    /**
     * Runs {@code workload} on {@code engine} over its {@code events} input records in a JVM of its
     * own ({@link BrokerFootprintChild}, with this JVM's options): the instance's events/s, threads,
     * resident set and heap, none of them the broker's.
     */
    Footprint footprint(BrokerWorkload workload, StreamsEngine engine, long events) throws Exception {
        String app = "footprint-" + workload.cliName() + "-" + engine.cliName() + "-" + apps++;
        Path dir = root.resolve(app);
        Files.createDirectories(dir);
        Path log = dir.resolve("child.log");
        List<String> cmd = ChildJvm.javaCommand(BrokerFootprintChild.class);
        cmd.addAll(List.of(cluster.bootstrapServers(), app, dir.resolve("a").toString(), engine.cliName(),
                workload.cliName(), String.valueOf(events), String.valueOf(exactlyOnce)));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!child.waitFor(Math.max(300, events / 300), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the " + workload.cliName() + " instance on " + engine.cliName()
                        + " did not finish; its log: " + log);
            }
            String line = Files.readAllLines(log).stream().filter(l -> l.startsWith(BrokerFootprintChild.PREFIX))
                    .findFirst().orElseThrow(() -> new IllegalStateException("the " + workload.cliName()
                            + " instance on " + engine.cliName() + " reported nothing (exit " + child.exitValue()
                            + "); its log: " + log));
            Map<String, Object> m = Json.parseObject(line.substring(BrokerFootprintChild.PREFIX.length()));
            Footprint f = new Footprint(workload, engine, ((Number) m.get("eventsPerSecond")).doubleValue(),
                    ((Number) m.get("threads")).intValue(), ((Number) m.get("residentMiB")).doubleValue(),
                    ((Number) m.get("heapMiB")).doubleValue());
            StreamsBenchCommand.deleteRecursively(dir);
            return f;
        } finally {
            child.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
        }
    }

    /** What {@link #footprint} measured of one instance. */
    record Footprint(BrokerWorkload workload, StreamsEngine engine, double eventsPerSecond, int threads,
                     double residentMiB, double heapMiB) {
    }

    private static int storesPerPartition(BrokerWorkload workload) {
        return workload == BrokerWorkload.JOIN ? 2 : 1;
    }

    private Properties config(String app, StreamsEngine engine, Path stateDir) {
        return config(cluster.bootstrapServers(), app, engine, stateDir, exactlyOnce);
    }

    /** An application's configuration, in this JVM or in a {@link BrokerFootprintChild}. */
    static Properties config(String bootstrap, String app, StreamsEngine engine, Path stateDir, boolean exactlyOnce) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // Every record reaches the store: the store, not Kafka's cache, is measured.
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");
        // One sample window longer than any run: the latency averages then cover the whole run.
        props.put(StreamsConfig.METRICS_SAMPLE_WINDOW_MS_CONFIG, (int) TimeUnit.HOURS.toMillis(1));
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        // Kafka 5.0's default, set now: otherwise every application warns that it is off.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, engine == StreamsEngine.BLOOMSTORE
                ? BloomStoreDslStoreSuppliers.class : BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        if (exactlyOnce) {
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        }
        return props;
    }

    static CloseOptions leaving() {
        // Leave the group on close, so the next instance of the application is assigned at once.
        return CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(CLOSE_TIMEOUT);
    }

    /** Input records the instance's stream threads processed (no topology here repartitions). */
    static long processed(KafkaStreams streams) {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName n = e.getKey();
            if ("stream-thread-metrics".equals(n.group()) && "process-total".equals(n.name())) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return (long) sum;
    }

    /**
     * Mean ns per store operation from Kafka's metered stores: each store's
     * {@code <op>-latency-avg} weighted by its {@code <op>-rate} (same sample window for all).
     * Fails when a store of the other engine is found: the run would not measure what it says.
     */
    static Map<String, Double> nanosPerOp(Map<MetricName, ? extends Metric> metrics, StreamsEngine engine) {
        Map<String, Double> weighted = new TreeMap<>();
        Map<String, Double> weights = new HashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName n = e.getKey();
            if (!STATE_METRICS.equals(n.group()) || !n.name().endsWith(LATENCY_AVG)) {
                continue;
            }
            String scope = n.tags().keySet().stream().filter(k -> k.endsWith("-state-id")).findFirst().orElse(null);
            if (scope == null) {
                continue;
            }
            if (!scope.startsWith(engine.cliName())) {
                throw new IllegalStateException("a " + scope + " store in a run on " + engine.cliName() + ": " + n);
            }
            double avg = ((Number) e.getValue().metricValue()).doubleValue();
            String op = n.name().substring(0, n.name().length() - LATENCY_AVG.length());
            Metric rate = metrics.get(new MetricName(op + "-rate", n.group(), "", n.tags()));
            double w = rate == null ? 0 : ((Number) rate.metricValue()).doubleValue();
            if (Double.isNaN(avg) || !(w > 0)) {
                continue;
            }
            weighted.merge(op, avg * w, Double::sum);
            weights.merge(op, w, Double::sum);
        }
        Map<String, Double> out = new TreeMap<>();
        weighted.forEach((op, sum) -> out.put(op, sum / weights.get(op)));
        return out;
    }

    static void await(String what, long seconds, KafkaStreams streams, BooleanSupplier done)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean()) {
            KafkaStreams.State s = streams.state();
            if (s == KafkaStreams.State.ERROR || s == KafkaStreams.State.PENDING_ERROR || s == KafkaStreams.State.NOT_RUNNING) {
                throw new IllegalStateException("Kafka Streams went " + s + " waiting for " + what);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }

    /** Times restoration: first store's start to last store's end, and counts the records. */
    private static final class RestoreTimer implements StateRestoreListener {
        private long first = Long.MAX_VALUE;
        private long last;
        private long restored;
        private int ended;

        @Override
        public synchronized void onRestoreStart(TopicPartition partition, String store, long start, long end) {
            first = Math.min(first, System.nanoTime());
        }

        @Override
        public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long numRestored) {
        }

        @Override
        public synchronized void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
            last = Math.max(last, System.nanoTime());
            restored += totalRestored;
            ended++;
        }

        synchronized int ended() {
            return ended;
        }

        synchronized long restored() {
            return restored;
        }

        synchronized long nanos() {
            return last - first;
        }
    }
}
