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
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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
                  double resumeSeconds, Phases phases, boolean outputsExact, String mismatch) {
    }

    /**
     * Where a resume went, by the resumed JVM's age in seconds: when Kafka Streams started to
     * rebalance (the JVM's and Streams' start-up), and when it last went to {@code RUNNING} (the
     * rebalance and the stores' opens and restores done); the rest of the resume, to the first output,
     * is processing and the first commit. NaN when the child's log does not say.
     */
    record Phases(double rebalancingAt, double runningAt) {
    }

    private final String bootstrap;
    private final Path root;
    private final int partitions;
    /** Whether the instances are static members of their group (a {@code group.instance.id}). */
    private final boolean staticMembership;
    /** Per application, the event time of its first input record. */
    private final Map<String, Long> starts = new HashMap<>();
    private int runs;

    EosCrashBench(String bootstrap, Path root, int partitions, boolean staticMembership) {
        this.bootstrap = bootstrap;
        this.root = root;
        this.partitions = partitions;
        this.staticMembership = staticMembership;
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
        try (Outputs out = new Outputs(bootstrap, output, expected)) {
            child = start(app, state, config, application, input, output, root.resolve(app + "-1.log"));
            long killCount = (long) (expected.outputs() * killAt);
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
            await("all outputs", 1800, () -> out.poll() >= expected.outputs());
            long extra = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < extra) {
                out.poll();
            }
            String mismatch = out.check();
            return new Result(application, config, events, restored(log2), restoreSeconds(log2), resume,
                    phases(log2), mismatch == null, mismatch);
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
                String.valueOf(config.transactional()), application, input, output,
                staticMembership ? app + "-instance" : "-"));
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

    /** The first {@code STATE REBALANCING} and the last {@code STATE RUNNING} of a child's log. */
    static Phases phases(Path log) throws IOException {
        double rebalancing = Double.NaN;
        double running = Double.NaN;
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("STATE REBALANCING at ") && Double.isNaN(rebalancing)) {
                rebalancing = ageSeconds(line);
            } else if (line.startsWith("STATE RUNNING at ")) {
                running = ageSeconds(line);
            }
        }
        return new Phases(rebalancing, running);
    }

    /** "STATE X at N ms" → N / 1000. */
    private static double ageSeconds(String line) {
        String ms = line.substring(line.lastIndexOf(" at ") + 4, line.length() - " ms".length()).trim();
        return Long.parseLong(ms) / 1e3;
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

    /**
     * What the outputs of a run without a crash are, checked one output at a time as they arrive:
     * their number, and each dedup id once, or each window key's counts running 1, 2, … to its
     * number of events in that window.
     */
    interface Expected {
        long outputs();

        /** One output, in the order its partition holds it. */
        void accept(String key, String value);

        /** Null when the outputs accepted are exactly the expected ones (all {@code total} of them). */
        String mismatch(long total);
    }

    static Expected expected(String application, int events, long seed, long t0) {
        return application.equals("dedup") ? new DedupExpected(StreamsEvents.dedup(events, 0.9, seed).records())
                : new WindowExpected(events, t0);
    }

    /** Every distinct id output exactly once. */
    static final class DedupExpected implements Expected {
        private final Set<String> ids;
        private final Map<String, Integer> times;

        DedupExpected(String[] records) {
            ids = new HashSet<>(Arrays.asList(records));
            times = new HashMap<>(ids.size() * 4 / 3 + 1);
        }

        @Override
        public long outputs() {
            return ids.size();
        }

        @Override
        public void accept(String key, String value) {
            times.merge(key, 1, Integer::sum);
        }

        @Override
        public String mismatch(long total) {
            if (total != ids.size()) {
                return total + " outputs, expected " + ids.size();
            }
            for (Map.Entry<String, Integer> e : times.entrySet()) {
                if (e.getValue() != 1 || !ids.contains(e.getKey())) {
                    return "id " + e.getKey() + " output " + e.getValue() + " times";
                }
            }
            return times.size() == ids.size() ? null : times.size() + " ids output, expected " + ids.size();
        }
    }

    /**
     * Per window and key {@code w<k>} the counts output, held densely (window index × {@value
     * #WINDOW_KEYS} + k: two ints an entry, so ten million events need some 160 MB where maps of
     * strings needed gigabytes): each output must be the last one plus 1, and the last one the
     * key's number of events in the window.
     */
    static final class WindowExpected implements Expected {
        private final long events;
        private final long windowMs = BrokerWorkload.WINDOW.toMillis();
        private final long firstWindow;
        private final int[] expected;
        private final int[] last;
        private String firstMismatch;

        WindowExpected(int events, long t0) {
            this.events = events;
            firstWindow = t0 / windowMs * windowMs;
            int windows = (int) (windowIndex(t0 + (events - 1) / EVENTS_PER_MS) + 1);
            expected = new int[Math.multiplyExact(windows, WINDOW_KEYS)];
            last = new int[expected.length];
            for (int i = 0; i < events; i++) {
                expected[(int) (windowIndex(t0 + i / EVENTS_PER_MS) * WINDOW_KEYS + i % WINDOW_KEYS)]++;
            }
        }

        private long windowIndex(long timestamp) {
            return (timestamp / windowMs * windowMs - firstWindow) / windowMs;
        }

        @Override
        public long outputs() {
            return events;
        }

        @Override
        public void accept(String key, String value) {
            int at = key.indexOf('@');
            long k = key.startsWith("w") && at > 1 ? Long.parseLong(key, 1, at, 10) : -1;
            long window = at > 0 ? (Long.parseLong(key, at + 1, key.length(), 10) - firstWindow) / windowMs : -1;
            if (k < 0 || k >= WINDOW_KEYS || window < 0 || window * WINDOW_KEYS >= expected.length) {
                note("an output for no key or window of the input: " + key + " -> " + value);
                return;
            }
            int slot = (int) (window * WINDOW_KEYS + k);
            long count = Long.parseLong(value);
            if (count != last[slot] + 1L) {
                note(key + ": count " + count + " after " + last[slot]);
            }
            last[slot] = (int) count;
        }

        private void note(String mismatch) {
            if (firstMismatch == null) {
                firstMismatch = mismatch;
            }
        }

        @Override
        public String mismatch(long total) {
            if (firstMismatch != null) {
                return firstMismatch;
            }
            if (total != events) {
                return total + " outputs, expected " + events;
            }
            for (int slot = 0; slot < expected.length; slot++) {
                if (last[slot] != expected[slot]) {
                    return "w" + slot % WINDOW_KEYS + "@" + (firstWindow + slot / WINDOW_KEYS * windowMs) + ": "
                            + last[slot] + " outputs, expected " + expected[slot];
                }
            }
            return null;
        }
    }

    /** Reads an output topic from the start, {@code read_committed}, into an {@link Expected}. */
    private static final class Outputs implements AutoCloseable {
        private final KafkaConsumer<String, String> consumer;
        private final Expected expected;
        private long total;

        Outputs(String bootstrap, String topic, Expected expected) {
            this.expected = expected;
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
                expected.accept(r.key(), r.value());
                total++;
            }
            return total;
        }

        long total() {
            return total;
        }

        /** Null when the outputs are exactly those of a run without a crash; else the first difference. */
        String check() {
            return expected.mismatch(total);
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
