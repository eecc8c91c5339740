package io.bloomstore.cli.streams;

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.CliLogConfigurator;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Main;
import io.bloomstore.cli.bench.MachineInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code bloomstore bench-streams}: Kafka Streams topologies on {@code TopologyTestDriver} with
 * BloomStore and with Kafka's RocksDB store as the state store, in the same JVM, on the same
 * events: events/s, data-block reads per lookup and disk accesses saved per engine, the ratio
 * BloomStore/RocksDB (median of {@code --repeat} rounds, the engine order rotated each round),
 * and changelog restore records/s. Each engine runs with its Kafka Streams defaults.
 *
 * <p>With {@code --broker}: the dedup, a windowed count and a stream-stream join as real
 * {@code KafkaStreams} applications against a KRaft broker on loopback ({@link BrokerBench}):
 * end-to-end events/s, store time per operation from Kafka's own store metrics, and restore time
 * after wiping the instance's state directory. {@code --workloads eos-crash} kills an instance with
 * SIGKILL under exactly_once_v2 and times its resume ({@link EosCrashBench}).
 *
 * <p>The output carries the results only: Kafka's own log warnings (a state directory in the
 * system's temporary directory, which the bench uses and removes on purpose) are shown with
 * {@code --verbose}, else only its errors.
 *
 * <p>Thread safety: a command object serves one invocation.
 */
@Command(name = "bench-streams", mixinStandardHelpOptions = true,
        description = {"Kafka Streams state stores: BloomStore vs Kafka's RocksDB store on a dedup and a word-count "
                + "topology (TopologyTestDriver, same JVM), plus changelog restore.",
            "--broker: a dedup, a windowed count and a stream-stream join as real KafkaStreams applications on an "
                + "embedded KRaft broker: events/s, Kafka's store latency metrics, restore after a wiped state directory; "
                + "--workloads eos-crash: a SIGKILL under exactly_once_v2 and the resume.",
            "Kafka's own log warnings are shown with --verbose."})
public final class StreamsBenchCommand implements Callable<Integer> {
    static final String KAFKA_LOGGER = "org.apache.kafka";

    @Spec
    CommandSpec spec;

    @Option(names = "--events", description = "Dedup events (default: ${DEFAULT-VALUE}).")
    int events = 1_000_000;

    @Option(names = "--unique-fraction", description = "Fraction of dedup events with a new id (default: ${DEFAULT-VALUE}).")
    double uniqueFraction = 0.9;

    @Option(names = "--words", description = "Word-count words, in lines of 8 (default: ${DEFAULT-VALUE}).")
    int words = 400_000;

    @Option(names = "--vocabulary", description = "Distinct words of the word count (default: ${DEFAULT-VALUE}).")
    int vocabulary = 50_000;

    @Option(names = "--workloads", split = ",", description = "dedup, wordcount (default: both); with --broker: "
            + "dedup, windowed-count, join (default: all three), eos-crash.")
    List<String> workloads;

    @Option(names = "--broker", description = "Real KafkaStreams applications against an embedded KRaft broker on "
            + "loopback: dedup, windowed count, stream-stream join.")
    boolean broker;

    @Option(names = "--broker-events", description = "With --broker: input records per application "
            + "(default: ${DEFAULT-VALUE}).")
    int brokerEvents = 200_000;

    @Option(names = "--partitions", description = "With --broker: partitions of each input topic (default: ${DEFAULT-VALUE}).")
    int partitions = 2;

    @Option(names = "--repeat", description = "Rounds; the engine order rotates each round (default: ${DEFAULT-VALUE}).")
    int repeat = 3;

    @Option(names = "--warmup-events", description = "Dedup events of an untimed warm-up on each engine, 0 for none "
            + "(default: ${DEFAULT-VALUE}).")
    int warmupEvents = 100_000;

    @Option(names = "--no-restore", description = "Skip the changelog restore measurement.")
    boolean noRestore;

    @Option(names = "--crash-events", description = "With --broker --workloads eos-crash: input records of each "
            + "application (default: ${DEFAULT-VALUE}).")
    int crashEvents = 1_150_000;

    @Option(names = "--crash-applications", split = ",", description = "With --broker --workloads eos-crash: "
            + "dedup, windowed-count (default: both).")
    List<String> crashApplications = List.of("dedup", "windowed-count");

    @Option(names = "--static-membership", description = "With --broker --workloads eos-crash: the instances are "
            + "static members of their group (group.instance.id), so the restarted one takes its tasks back "
            + "without a rebalance.")
    boolean staticMembership;

    @Option(names = "--footprint", description = "With --broker: after each run, the same application once more in a "
            + "JVM of its own, reporting its events/s, OS threads, resident set and heap (the broker's JVM is apart).")
    boolean footprint;

    @Option(names = "--exactly-once", description = "With --broker: run under exactly_once_v2 with "
            + "enable.transactional.statestores on (both engines' stores transactional, commits every 100 ms).")
    boolean exactlyOnce;

    /** A class of Kafka Streams, looked up as a resource: present when Kafka's libraries are. */
    static final String KAFKA_PROBE = "org/apache/kafka/streams/KafkaStreams.class";

    @Option(names = "--seed", description = "Seed of the generated events (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = "--data", paramLabel = "DIR", description = "Directory in which the run makes a working directory "
            + "of its own for state stores and logs, removed at the end; nothing else in DIR is touched "
            + "(default: the system's temporary directory).")
    Path data;

    /** The run's own fresh directory: under {@code --data} when given, else under the temporary directory. */
    private Path workDirectory() throws IOException {
        if (data == null) {
            return Files.createTempDirectory("bloomstore-bench-streams");
        }
        if (Files.exists(data) && !Files.isDirectory(data)) {
            throw usage("--data " + data + " is not a directory");
        }
        createdData = !Files.exists(data);
        return Files.createTempDirectory(Files.createDirectories(data), "bench-streams-");
    }

    /** Removes the run's working directory, and {@code --data} too when the run created it and it is empty. */
    private void removeWorkDirectory(Path root) throws IOException {
        deleteRecursively(root);
        if (createdData) {
            try (Stream<Path> left = Files.list(data)) {
                if (left.findAny().isEmpty()) {
                    Files.delete(data);
                }
            }
        }
    }

    /** Whether this run created the {@code --data} directory. */
    private boolean createdData;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    /** Kafka logs only errors unless {@code --verbose} (a logback configuration of the user's own is kept). */
    private void quietKafkaUnlessVerbose() {
        if (!((Main) spec.root().userObject()).verbose()) {
            CliLogConfigurator.holdToErrors(KAFKA_LOGGER);
            // The broker of --broker logs under its Scala packages and the state-change logger.
            CliLogConfigurator.holdToErrors("kafka");
            CliLogConfigurator.holdToErrors("state.change.logger");
        }
    }

    @Override
    public Integer call() throws Exception {
        requireKafka(StreamsBenchCommand.class.getClassLoader());
        if (broker) {
            return callBroker();
        }
        List<StreamsWorkload> chosen = new ArrayList<>();
        try {
            for (String w : workloads == null ? List.of("dedup", "wordcount") : workloads) {
                chosen.add(StreamsWorkload.byCliName(w));
            }
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        if (events < 1 || words < StreamsEvents.WORDS_PER_LINE || vocabulary < 1 || repeat < 1 || warmupEvents < 0) {
            throw usage("--events, --vocabulary and --repeat must be positive, --words at least "
                    + StreamsEvents.WORDS_PER_LINE + ", --warmup-events not negative");
        }
        if (!(uniqueFraction > 0 && uniqueFraction <= 1)) {
            throw usage("--unique-fraction must be in (0, 1]: " + uniqueFraction);
        }
        quietKafkaUnlessVerbose();
        PrintWriter out = spec.commandLine().getOut();
        MachineInfo machine = MachineInfo.current();
        out.println("bloomstore bench-streams: bloomstore vs rocksdb (Kafka Streams state stores) on " + machine.describe());
        out.flush();
        Path root = workDirectory();
        List<StreamsResult> results = new ArrayList<>();
        Map<StreamsEngine, Double> restore = new LinkedHashMap<>();
        int runs = 0;
        try {
            if (warmupEvents > 0) {
                StreamsEvents warm = StreamsEvents.dedup(warmupEvents, uniqueFraction, seed + 1);
                for (StreamsEngine e : StreamsEngine.values()) {
                    StreamsRun.run(StreamsWorkload.DEDUP, e, warm, root.resolve("run-" + runs++), null);
                }
            }
            List<ConsumerRecord<byte[], byte[]>> changelog = null;
            for (StreamsWorkload w : chosen) {
                StreamsEvents input = w == StreamsWorkload.DEDUP ? StreamsEvents.dedup(events, uniqueFraction, seed)
                        : StreamsEvents.wordCount(words, vocabulary, seed);
                for (int round = 0; round < repeat; round++) {
                    StreamsEngine[] order = StreamsEngine.values();
                    for (int i = 0; i < order.length; i++) {
                        StreamsEngine e = order[(i + round) % order.length];
                        boolean capture = !noRestore && w == StreamsWorkload.DEDUP && round == 0 && changelog == null;
                        List<ConsumerRecord<byte[], byte[]>> sink = capture ? StreamsRun.newChangelog() : null;
                        StreamsResult r = StreamsRun.run(w, e, input, root.resolve("run-" + runs++), sink);
                        if (capture) {
                            changelog = sink;
                        }
                        results.add(r);
                        out.printf("  round %d %-9s %-9s %,12.0f events/s%n", round + 1, w.cliName(), e.cliName(),
                                r.eventsPerSecond());
                        out.flush();
                        deleteRecursively(root.resolve("run-" + (runs - 1)));
                    }
                }
            }
            if (changelog != null) {
                for (int round = 0; round < repeat; round++) {
                    for (StreamsEngine e : StreamsEngine.values()) {
                        Path dir = root.resolve("restore-" + runs++);
                        double rate = RestoreBench.recordsPerSecond(e, StreamsWorkload.DEDUP.storeName(), changelog, dir);
                        restore.merge(e, rate, Math::max);
                        deleteRecursively(dir);
                    }
                }
            }
        } finally {
            removeWorkDirectory(root);
        }
        StreamsTable.print(out, results, restore, changelogSize(results));
        if (json != null) {
            Files.writeString(json, Json.write(report(machine, results, restore)));
            out.println("JSON written to " + json);
        }
        out.flush();
        return 0;
    }

    private int callBroker() throws Exception {
        List<BrokerWorkload> chosen = new ArrayList<>();
        boolean crash = false;
        try {
            for (String w : workloads == null ? List.of("dedup", "windowed-count", "join") : workloads) {
                if (w.equals("eos-crash")) {
                    crash = true;
                } else {
                    chosen.add(BrokerWorkload.byCliName(w));
                }
            }
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        if (brokerEvents < 2 || partitions < 1 || repeat < 1) {
            throw usage("--broker-events must be at least 2, --partitions and --repeat positive");
        }
        if (crash && crashEvents < 2) {
            throw usage("--crash-events must be at least 2");
        }
        for (String a : crashApplications) {
            if (!a.equals("dedup") && !a.equals("windowed-count")) {
                throw usage("unknown --crash-applications '" + a + "'; known: dedup, windowed-count");
            }
        }
        quietKafkaUnlessVerbose();
        PrintWriter out = spec.commandLine().getOut();
        MachineInfo machine = MachineInfo.current();
        out.println("bloomstore bench-streams --broker: bloomstore vs rocksdb (KafkaStreams on a KRaft broker on loopback"
                + (exactlyOnce ? ", exactly_once_v2 with transactional state stores" : "") + ") on " + machine.describe());
        out.flush();
        Path root = workDirectory();
        List<BrokerResult> results = new ArrayList<>();
        List<BrokerBench.Footprint> footprints = new ArrayList<>();
        List<EosCrashBench.Result> crashResults = List.of();
        try (BrokerBench bench = BrokerBench.start(root, partitions, !((Main) spec.root().userObject()).verbose())) {
            bench.exactlyOnce(exactlyOnce);
            if (crash) {
                crashResults = crash(bench, root, out);
            }
            for (BrokerWorkload w : chosen) {
                long n = bench.produce(w, w.events(brokerEvents, seed));
                for (int round = 0; round < repeat; round++) {
                    StreamsEngine[] order = StreamsEngine.values();
                    for (int i = 0; i < order.length; i++) {
                        StreamsEngine e = order[(i + round) % order.length];
                        BrokerResult r = bench.run(w, e, n, !noRestore);
                        results.add(r);
                        out.printf(Locale.ROOT, "  round %d %-15s %-11s %,10.0f events/s  %s %,.0f ns  restore %,.0f ms%n",
                                round + 1, w.cliName(), e.cliName(), r.eventsPerSecond(), w.lookupOperation(),
                                r.nanos(w.lookupOperation()), r.restoreNanos() / 1e6);
                        out.flush();
                        if (footprint) {
                            BrokerBench.Footprint f = bench.footprint(w, e, n);
                            footprints.add(f);
                            out.printf(Locale.ROOT, "  round %d %-15s %-11s %,10.0f events/s  %d threads  resident %,.1f MiB"
                                    + "  heap %,.1f MiB (own JVM)%n", round + 1, w.cliName(), e.cliName(),
                                    f.eventsPerSecond(), f.threads(), f.residentMiB(), f.heapMiB());
                            out.flush();
                        }
                    }
                }
            }
        } finally {
            removeWorkDirectory(root);
        }
        if (!results.isEmpty()) {
            BrokerTable.print(out, results);
        }
        if (!footprints.isEmpty()) {
            FootprintTable.print(out, footprints);
        }
        if (json != null) {
            Map<String, Object> report = brokerReport(machine, results);
            if (!footprints.isEmpty()) {
                report.put("footprint", FootprintTable.report(footprints));
            }
            report.put("eosCrash", crashRows(crashResults));
            Files.writeString(json, Json.write(report));
            out.println("JSON written to " + json);
        }
        out.flush();
        return 0;
    }

    /**
     * eos-crash: each application, on BloomStore and on Kafka's RocksDB stores with transactional
     * state stores on and off, killed with SIGKILL at 60% of its outputs and resumed;
     * {@code --repeat} rounds, the configuration order rotating; medians.
     */
    private List<EosCrashBench.Result> crash(BrokerBench bench, Path root, PrintWriter out) throws Exception {
        EosCrashBench crash = new EosCrashBench(bench.bootstrapServers(), root, partitions, staticMembership);
        List<EosCrashBench.Config> configs = List.of(new EosCrashBench.Config(StreamsEngine.BLOOMSTORE, true),
                new EosCrashBench.Config(StreamsEngine.ROCKSDB, true), new EosCrashBench.Config(StreamsEngine.ROCKSDB, false));
        List<EosCrashBench.Result> results = new ArrayList<>();
        for (String application : crashApplications.stream().distinct().toList()) {
            String input = crash.produce(application, crashEvents, seed);
            for (int round = 0; round < repeat; round++) {
                for (int i = 0; i < configs.size(); i++) {
                    EosCrashBench.Config c = configs.get((i + round) % configs.size());
                    EosCrashBench.Result r = crash.run(application, input, crashEvents, c, 0.6, seed);
                    results.add(r);
                    out.printf(Locale.ROOT, "  round %d eos-crash %-15s %-14s restored %,9d in %5.1f s  resume %5.1f s"
                                    + " (rebalancing at %.1f, running at %.1f)  outputsExact %s%s%n", round + 1,
                            application, c.name(), r.restoredRecords(), r.restoreSeconds(), r.resumeSeconds(),
                            r.phases().rebalancingAt(), r.phases().runningAt(), r.outputsExact(),
                            r.mismatch() == null ? "" : " (" + r.mismatch() + ")");
                    out.flush();
                }
            }
            out.printf(Locale.ROOT, "%-15s %-14s %12s %12s %10s %12s%n", "application", "engine", "restored",
                    "restore s", "resume s", "outputsExact");
            for (EosCrashBench.Config c : configs) {
                List<EosCrashBench.Result> mine = results.stream()
                        .filter(r -> r.application().equals(application) && r.config().equals(c)).toList();
                out.printf(Locale.ROOT, "%-15s %-14s %,12.0f %12.1f %10.1f %12s%n", application, c.name(),
                        io.bloomstore.cli.bench.Summary.median(mine.stream().mapToDouble(EosCrashBench.Result::restoredRecords).toArray()),
                        io.bloomstore.cli.bench.Summary.median(mine.stream().mapToDouble(EosCrashBench.Result::restoreSeconds).toArray()),
                        io.bloomstore.cli.bench.Summary.median(mine.stream().mapToDouble(EosCrashBench.Result::resumeSeconds).toArray()),
                        mine.stream().allMatch(EosCrashBench.Result::outputsExact));
            }
            out.flush();
        }
        return results;
    }

    /** JSON has no NaN: a figure the child's log did not give is null. */
    private static Double orNull(double x) {
        return Double.isNaN(x) ? null : x;
    }

    private List<Map<String, Object>> crashRows(List<EosCrashBench.Result> results) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (EosCrashBench.Result r : results) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("application", r.application());
            row.put("engine", r.config().name());
            row.put("events", r.events());
            row.put("restoredRecords", r.restoredRecords());
            row.put("restoreSeconds", r.restoreSeconds());
            row.put("resumeSeconds", r.resumeSeconds());
            row.put("rebalancingAtSeconds", orNull(r.phases().rebalancingAt()));
            row.put("runningAtSeconds", orNull(r.phases().runningAt()));
            row.put("staticMembership", staticMembership);
            row.put("outputsExact", r.outputsExact());
            rows.add(row);
        }
        return rows;
    }

    private Map<String, Object> brokerReport(MachineInfo machine, List<BrokerResult> results) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("machine", machine.describe());
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("mode", "broker");
        config.put("events", brokerEvents);
        config.put("partitions", partitions);
        config.put("repeat", repeat);
        config.put("seed", seed);
        config.put("processingGuarantee", exactlyOnce ? "exactly_once_v2" : "at_least_once");
        config.put("transactionalStateStores", exactlyOnce);
        root.put("config", config);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (BrokerResult r : results) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("workload", r.workload().cliName());
            row.put("engine", r.engine().cliName());
            row.put("events", r.events());
            row.put("seconds", r.elapsedNanos() / 1e9);
            row.put("eventsPerSecond", r.eventsPerSecond());
            row.put("storeNanosPerOp", new TreeMap<>(r.nanosPerOp()));
            row.put("restoredRecords", r.restored());
            row.put("restoreMillis", r.restoreNanos() / 1e6);
            rows.add(row);
        }
        root.put("runs", rows);
        Map<String, Object> summary = new LinkedHashMap<>();
        for (BrokerWorkload w : BrokerWorkload.values()) {
            if (BrokerTable.of(results, w, StreamsEngine.BLOOMSTORE).isEmpty()
                    || BrokerTable.of(results, w, StreamsEngine.ROCKSDB).isEmpty()) {
                continue;
            }
            Map<String, Object> s = new LinkedHashMap<>();
            for (StreamsEngine e : StreamsEngine.values()) {
                s.put(e.cliName() + "EventsPerSecond", BrokerTable.median(results, w, e, BrokerResult::eventsPerSecond));
                s.put(e.cliName() + "LookupNanos", BrokerTable.lookupNanos(results, w, e));
                s.put(e.cliName() + "RestoreMillis", BrokerTable.restoreMillis(results, w, e));
            }
            s.put("lookupOperation", w.lookupOperation());
            s.put("endToEndRatio", BrokerTable.endToEndRatio(results, w));
            s.put("lookupRatio", BrokerTable.lookupRatio(results, w));
            s.put("restoreSpeedRatio", BrokerTable.restoreRatio(results, w));
            summary.put(w.cliName(), s);
        }
        root.put("medians", summary);
        return root;
    }

    private long changelogSize(List<StreamsResult> results) {
        return results.stream().filter(r -> r.workload() == StreamsWorkload.DEDUP).findFirst()
                .map(r -> (long) StreamsEvents.dedup(events, uniqueFraction, seed).unique()).orElse(0L);
    }

    private Map<String, Object> report(MachineInfo machine, List<StreamsResult> results, Map<StreamsEngine, Double> restore) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("machine", machine.describe());
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("events", events);
        config.put("uniqueFraction", uniqueFraction);
        config.put("words", words);
        config.put("vocabulary", vocabulary);
        config.put("repeat", repeat);
        config.put("warmupEvents", warmupEvents);
        config.put("seed", seed);
        root.put("config", config);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (StreamsResult r : results) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("workload", r.workload().cliName());
            row.put("engine", r.engine().cliName());
            row.put("events", r.events());
            row.put("seconds", r.elapsedNanos() / 1e9);
            row.put("eventsPerSecond", r.eventsPerSecond());
            row.put("lookups", r.counters().lookups());
            row.put("dataBlockReads", r.counters().dataBlockReads());
            row.put("dataBlockReadsPerLookup", r.counters().dataBlockReadsPerLookup());
            row.put("diskAccessesSaved", r.counters().filterNegatives());
            rows.add(row);
        }
        root.put("runs", rows);
        Map<String, Object> summary = new LinkedHashMap<>();
        for (StreamsWorkload w : StreamsWorkload.values()) {
            double b = StreamsTable.median(results, w, StreamsEngine.BLOOMSTORE);
            double k = StreamsTable.median(results, w, StreamsEngine.ROCKSDB);
            if (!Double.isNaN(b) && !Double.isNaN(k)) {
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("bloomstoreEventsPerSecond", b);
                s.put("rocksdbEventsPerSecond", k);
                s.put("ratio", b / k);
                summary.put(w.cliName(), s);
            }
        }
        root.put("medians", summary);
        Map<String, Object> r = new LinkedHashMap<>();
        restore.forEach((e, v) -> r.put(e.cliName() + "RecordsPerSecond", v));
        if (restore.size() == 2) {
            r.put("ratio", restore.get(StreamsEngine.BLOOMSTORE) / restore.get(StreamsEngine.ROCKSDB));
        }
        root.put("restore", r);
        return root;
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Kafka's libraries are not in bloomstore.jar but in bloomstore-kafka.jar beside it (named by
     * its manifest's Class-Path, so that every other command's start reads a quarter of the
     * entries); a jar copied without it says so here instead of failing on a missing class.
     */
    static void requireKafka(ClassLoader loader) {
        if (loader.getResource(KAFKA_PROBE) == null) {
            throw new CliException(ExitCodes.IO, "bench-streams needs Kafka's libraries: bloomstore-kafka.jar"
                    + " beside bloomstore.jar (mvn package builds both into store-cli/target; copy them together)");
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
