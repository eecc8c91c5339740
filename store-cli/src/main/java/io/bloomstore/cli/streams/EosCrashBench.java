package io.bloomstore.cli.streams;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code bench-streams --broker --workloads eos-crash}: what a {@code kill -9} costs under
 * {@code exactly_once_v2}. Two applications, each over an input written once: {@code dedup} (about
 * 90% new ids, so the store ends with about 0.9 × events keys) and {@code windowed-count} (keys
 * {@code i mod 1,000,000}, 50 events per millisecond, so a 10 s window holds 500,000 keys and the
 * store one entry per event).
 * For each engine configuration a child JVM ({@link EosCrashChild}) processes the input; once its
 * committed outputs cover {@code killAt} of the input, it is killed with SIGKILL in the middle of
 * its transactions; a new child on the same state directory resumes. Reported: the changelog
 * records the resumed instance restored and the seconds its restore took, the seconds from its
 * start to its first output (a new JVM and a rebalance included), and
 * whether the outputs (read {@code read_committed}) are exactly those of a run without a crash:
 * every distinct id once (dedup), every key's counts in every window running 1, 2, … to its number
 * of events there, with no gap or repeat (windowed count). The kill comes as soon as the outputs
 * of a transaction are visible, so it often lands between Kafka's transaction commit and the
 * stores' commit: a transactional store then restores that transaction's changelog records.
 *
 * <p>Thread safety: one bench per thread.
 */
final class EosCrashBench {
    static final int WINDOW_KEYS = 1_000_000;
    static final int EVENTS_PER_MS = 50;

    /** An engine with {@code enable.transactional.statestores} on or off. */
    record Config(StreamsEngine engine, boolean transactional) {
        String name() {
            return engine.cliName() + (transactional ? "-tx" : "-no-tx");
        }
    }

    /** What one crash and resume measured. */
    record Result(String application, Config config, long events, long restoredRecords, double restoreSeconds,
                  double resumeSeconds, boolean outputsExact, String mismatch) {
    }

    private final String bootstrap;
    private final Path root;
    private final int partitions;
    /** Per application, the event time of its first input record. */
    private final Map<String, Long> starts = new HashMap<>();
    private int runs;

    EosCrashBench(String bootstrap, Path root, int partitions) {
        this.bootstrap = bootstrap;
        this.root = root;
        this.partitions = partitions;
    }

    /** Writes the application's input topic once: {@code events} records. */
    String produce(String application, int events, long seed) throws Exception {
        String topic = "crash-" + application + "-in";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
        String[] ids = application.equals("dedup") ? StreamsEvents.dedup(events, 0.9, seed).records() : null;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 120_000);
        long t0 = System.currentTimeMillis() - events / EVENTS_PER_MS - 60_000;
        starts.put(application, t0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < events; i++) {
                String key = ids != null ? ids[i] : "w" + (i % WINDOW_KEYS);
                producer.send(new ProducerRecord<>(topic, null, t0 + i / EVENTS_PER_MS, key, "e"));
            }
            producer.flush();
        }
        return topic;
    }

    /** One run: process, SIGKILL at {@code killAt} of the expected outputs, resume, check. */
    Result run(String application, String input, int events, Config config, double killAt, long seed)
            throws Exception {
        String app = "crash-" + application + "-" + config.name() + "-" + runs++;
        String output = app + "-out";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(output, partitions, (short) 1))).all().get();
        }
        Path state = root.resolve(app);
        Expected expected = expected(application, events, seed, starts.get(application));
        Process child = null;
        try (Outputs out = new Outputs(bootstrap, output)) {
            child = start(app, state, config, application, input, output, root.resolve(app + "-1.log"));
            long killCount = (long) (expected.outputs * killAt);
            await("the first instance's outputs", 900, () -> out.poll() >= killCount);
            child.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            // Outputs of transactions committed before the kill may still be on their way.
            long settled = -1;
            while (settled != out.total()) {
                settled = out.total();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < until) {
                    out.poll();
                }
            }
            long before = out.total();
            long started = System.nanoTime();
            Path log2 = root.resolve(app + "-2.log");
            child = start(app, state, config, application, input, output, log2);
            await("the resumed instance's first output", 900, () -> out.poll() > before);
            double resume = (System.nanoTime() - started) / 1e9;
            await("all outputs", 1800, () -> out.poll() >= expected.outputs);
            long extra = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < extra) {
                out.poll();
            }
            String mismatch = out.check(application, expected);
            return new Result(application, config, events, restored(log2), restoreSeconds(log2), resume,
                    mismatch == null, mismatch);
        } finally {
            if (child != null) {
                child.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            }
            StreamsBenchCommand.deleteRecursively(state);
        }
    }

    private Process start(String app, Path state, Config config, String application, String input, String output,
                          Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx1g");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(EosCrashChild.class.getName());
        cmd.addAll(List.of(bootstrap, app, state.toString(), config.engine().cliName(),
                String.valueOf(config.transactional()), application, input, output));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static long restored(Path log) throws IOException {
        return Files.readAllLines(log).stream().filter(l -> l.startsWith("RESTORED "))
                .mapToLong(l -> Long.parseLong(l.substring("RESTORED ".length()).trim())).sum();
    }

    /** From the resumed instance's first restore start to its last restore end; 0 without a restore. */
    private static double restoreSeconds(Path log) throws IOException {
        return Files.readAllLines(log).stream().filter(l -> l.startsWith("RESTORE-NANOS "))
                .mapToLong(l -> Long.parseLong(l.substring("RESTORE-NANOS ".length()).trim())).max().orElse(0) / 1e9;
    }

    private Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    private static void await(String what, int seconds, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + seconds + " s waiting for " + what);
            }
        }
    }

    /** The outputs of a run without a crash: their number, and per dedup id or window key its count. */
    private record Expected(long outputs, Map<String, Integer> counts) {
    }

    private static Expected expected(String application, int events, long seed, long t0) {
        Map<String, Integer> counts = new HashMap<>();
        if (application.equals("dedup")) {
            for (String id : StreamsEvents.dedup(events, 0.9, seed).records()) {
                counts.put(id, 1);
            }
        } else {
            long windowMs = BrokerWorkload.WINDOW.toMillis();
            for (int i = 0; i < events; i++) {
                long start = (t0 + i / EVENTS_PER_MS) / windowMs * windowMs;
                counts.merge("w" + (i % WINDOW_KEYS) + "@" + start, 1, Integer::sum);
            }
        }
        return new Expected(application.equals("dedup") ? counts.size() : events, counts);
    }

    /** Reads an output topic from the start, {@code read_committed}. */
    private static final class Outputs implements AutoCloseable {
        private final KafkaConsumer<String, String> consumer;
        /** dedup: id → times output; windowed count: "key@windowStart" → the counts output, in order. */
        private final Map<String, List<Long>> seen = new HashMap<>();
        private long total;

        Outputs(String bootstrap, String topic) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
            consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
        }

        long poll() {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(20))) {
                seen.computeIfAbsent(r.key(), k -> new ArrayList<>(2)).add(r.value().equals("e") ? 1L : Long.parseLong(r.value()));
                total++;
            }
            return total;
        }

        long total() {
            return total;
        }

        /** Null when the outputs are exactly those of a run without a crash; else the first difference. */
        String check(String application, Expected expected) {
            if (total != expected.outputs) {
                return total + " outputs, expected " + expected.outputs;
            }
            if (application.equals("dedup")) {
                for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
                    if (e.getValue().size() != 1 || !expected.counts.containsKey(e.getKey())) {
                        return "id " + e.getKey() + " output " + e.getValue().size() + " times";
                    }
                }
                return seen.size() == expected.counts.size() ? null
                        : seen.size() + " ids output, expected " + expected.counts.size();
            }
            for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
                List<Long> c = e.getValue();
                for (int i = 0; i < c.size(); i++) {
                    if (c.get(i) != i + 1) {
                        return e.getKey() + ": output " + i + " is " + c.get(i) + " (" + c + ")";
                    }
                }
                Integer n = expected.counts.get(e.getKey());
                if (n == null || n != c.size()) {
                    return e.getKey() + ": " + c.size() + " outputs, expected " + n;
                }
            }
            long windows = expected.counts.size();
            return seen.size() == windows ? null : seen.size() + " windows output, expected " + windows;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
