package io.bloomstore.cli.bench;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Terminal;
import io.bloomstore.cli.Units;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore bench}: runs db_bench-style workloads on BloomStore with and without
 * filters and on RocksDB, on the same keys with the same resources, and reports throughput,
 * latency, data-block reads per lookup, disk accesses saved and measured false-positive
 * rates — on the console, and optionally as JSON and as a self-contained HTML report.
 *
 * <p>Thread safety: a command object serves one invocation.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure disk accesses saved by filters, side by side with RocksDB.",
                "Defaults finish in a few minutes on 2 cores."})
public final class BenchCommand implements Callable<Integer> {
    /** The engines with no way to bypass the page cache. */
    private static final List<String> PEERS =
            List.of(LmdbEngine.NAME, MvStoreEngine.NAME, JeEngine.NAME, XodusEngine.NAME);
    /** A class of each peer's library, all in bloomstore-peers.jar beside bloomstore.jar. */
    private static final Map<String, String> PEER_PROBES = Map.of(
            LmdbEngine.NAME, "org/lmdbjava/Env.class",
            MvStoreEngine.NAME, "org/h2/mvstore/MVStore.class",
            JeEngine.NAME, "com/sleepycat/je/Environment.class",
            XodusEngine.NAME, "jetbrains/exodus/env/Environments.class");
    private final EngineFactory factory;

    @Spec
    CommandSpec spec;

    @Option(names = "--engines", split = ",", paramLabel = "NAME",
            description = "Engines to run: bloomstore, bloomstore-nofilter, rocksdb, rocksdb-ribbon (RocksDB with its "
                    + "Ribbon filter at the same bits per key), and the peers lmdb, mvstore (H2), je (Berkeley DB Java "
                    + "Edition), xodus (default: the four BloomStore and RocksDB engines).")
    List<String> engines;

    @Option(names = "--workloads", split = ",", paramLabel = "NAME",
            description = "Workloads (default: all but open and the scans): fillseq, fillrandom, readrandom, "
                    + "readmissing, readmixed, seekrandom, updaterandom, readwhilewriting; readlatest (YCSB D: 95%% lookups of recent "
                    + "keys, 5%% inserts); fillbatch (db_bench's: ascending keys, " + Workload.BATCH_ENTRIES
                    + " to a batch or transaction, run before the other fills); open (reopen the loaded store "
                    + "in a fresh JVM: open time, heap, RSS, filter and index bytes); and with --prefix-bytes: "
                    + "prefixscan, prefixmissing, rangescan, rangemissing. Alone: manystores (--stores), counters "
                    + "(--counters, --increments: int64Add merges against read-modify-write and RocksDB's merge), "
                    + "ingest (--keys sorted keys: TableWriter and Store.ingest against load and against RocksDB's "
                    + "SstFileWriter and ingestExternalFile), "
                    + "deleterange (the middle half of the keys deleted with one range deletion or one tombstone per "
                    + "key, then scanned at once; BloomStore and RocksDB).")
    List<String> workloads;

    @Option(names = "--repeat", paramLabel = "N", description = "Rounds: every engine runs every workload N times, "
            + "the engine order rotated each round; figures become medians (default: ${DEFAULT-VALUE}).")
    int repeat = 1;

    @Option(names = "--distribution", description = "Keys of lookups and updates: uniform, zipfian "
            + "(theta " + KeyChooser.ZIPFIAN_THETA + ", hot keys scattered) or latest (zipfian over load order, the"
            + " last loaded hottest, as YCSB's; default: ${DEFAULT-VALUE}).")
    String distribution = BenchConfig.defaults().distribution().name().toLowerCase(Locale.ROOT);

    @Option(names = "--cold-ops", description = "Operations of the cold-start probe: a fresh JVM per engine and "
            + "round does this many random puts, then as many lookups, with no warm-up; 0 for none "
            + "(default: ${DEFAULT-VALUE}).")
    int coldOps = 100_000;

    @Option(names = "--one-shot", paramLabel = "N", description = "Also time the one-shot store commands (get, put,"
            + " scan --limit 10, stats ...) as child processes on the loaded BloomStore store, N runs each through the"
            + " launcher beside the jar and through plain java -jar (default: ${DEFAULT-VALUE}: off).")
    private int oneShotRuns;

    @Option(names = "--writer-rate", paramLabel = "OPS", description = "Pace readwhilewriting's writer to OPS evenly"
            + " spaced puts a second, every engine alike (as db_bench's --benchmark_write_rate_limit), so that the readers"
            + " run beside the same write load; the writer/s column shows the rate achieved; 0 for as fast as it can"
            + " (default: ${DEFAULT-VALUE}).")
    double writerRate;

    @Option(names = "--keys", description = "Keys to load (default: ${DEFAULT-VALUE}).")
    int keys = BenchConfig.defaults().keys();

    @Option(names = "--key-size", description = "Key bytes, at least 8 (default: ${DEFAULT-VALUE}).")
    int keySize = BenchConfig.defaults().keySize();

    @Option(names = "--value-size", description = "Value bytes (default: ${DEFAULT-VALUE}).")
    int valueSize = BenchConfig.defaults().valueSize();

    @Option(names = "--threads", description = "Worker threads (default: ${DEFAULT-VALUE}).")
    int threads = BenchConfig.defaults().threads();

    @Option(names = "--reads", description = "Operations per read workload (default: ${DEFAULT-VALUE}).")
    long reads = BenchConfig.defaults().reads();

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "Time cap per read workload, 0 for none (default: ${DEFAULT-VALUE}).")
    long duration = BenchConfig.defaults().durationSeconds();

    @Option(names = "--bits-per-key", description = "Filter bits per key (default: ${DEFAULT-VALUE}).")
    double bitsPerKey = BenchConfig.defaults().bitsPerKey();

    @Option(names = "--filter-kind", description = "BloomStore filter kind: bloom, blocked, fuse (binary fuse: FPR 2^-8 at 10 bits/key) or ribbon (FPR 0.15-0.19%% at 10 bits/key) (default: ${DEFAULT-VALUE}).")
    String filterKind = BenchConfig.defaults().filterKind().cliName();

    @Option(names = "--block-cache-mb", description = "Block cache MiB per engine (default: ${DEFAULT-VALUE}).")
    long blockCacheMb = BenchConfig.defaults().blockCacheBytes() >> 20;

    @Option(names = "--memtable-mb", description = "Memtable MiB per engine (default: ${DEFAULT-VALUE}).")
    long memtableMb = BenchConfig.defaults().memtableBytes() >> 20;

    @Option(names = "--compression", description = "lz4 or none (default: ${DEFAULT-VALUE}).")
    String compression = BenchConfig.defaults().compression().name().toLowerCase(Locale.ROOT);

    @Option(names = "--missing-fraction", description = "Absent keys in readmixed (default: ${DEFAULT-VALUE}).")
    double missingFraction = BenchConfig.defaults().missingFraction();

    @Option(names = "--seed", description = "Seed of all random choices (default: ${DEFAULT-VALUE}).")
    long seed = BenchConfig.defaults().seed();

    @Option(names = "--data", paramLabel = "DIR",
            description = "Directory for the engines' stores (default: a fresh temporary directory).")
    Path data;

    @Option(names = "--keep", description = "Keep the stores after the run.")
    boolean keep;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    @Option(names = "--report", paramLabel = "FILE.html", description = "Also write a self-contained HTML report.")
    Path report;

    @Option(names = "--direct-reads", description = "Read data blocks with O_DIRECT, past the page cache"
            + " (BloomStore directReads, RocksDB use_direct_reads), so block-cache misses reach the device. The peers"
            + " lmdb, mvstore, je and xodus have no such setting: they read through the page cache all the same.")
    boolean directReads;

    @Option(names = "--wal-buffer", paramLabel = "BYTES", description = "BloomStore's walBufferBytes: writes that"
            + " do not sync wait in the process until this many bytes of WAL records gather, so a process crash may"
            + " lose them, as mvstore (which has no log) loses its last auto-commit (0, the default: every write"
            + " reaches the operating system before it returns, as with rocksdb, lmdb, je and xodus; at most 1 MiB).")
    int walBuffer;

    @Option(names = "--no-progress", description = "Do not draw progress bars on stderr (they are drawn only when"
            + " the output goes to a terminal).")
    boolean noProgress;

    @Option(names = "--prefix-bytes", description = "Keys get a prefix of this many bytes (0-4; 0: none), for "
            + "the scan workloads prefixscan, prefixmissing, rangescan, rangemissing (default: ${DEFAULT-VALUE}).")
    int prefixBytes = ScanConfig.none().prefixBytes();

    @Option(names = "--keys-per-prefix", description = "Loaded keys per prefix (default: ${DEFAULT-VALUE}).")
    int keysPerPrefix = ScanConfig.none().keysPerPrefix();

    @Option(names = "--range-length", description = "Numbers in the first 8 key bytes a rangescan or rangemissing "
            + "range spans, at most " + ScanConfig.MAX_RANGE_LENGTH + " (default: ${DEFAULT-VALUE}).")
    int rangeLength = ScanConfig.none().rangeLength();

    @Option(names = "--range-filter-bits", description = "BloomStore range filter bits per key, 0 for none "
            + "(default: ${DEFAULT-VALUE}).")
    double rangeFilterBits = ScanConfig.none().rangeFilterBits();

    @Option(names = "--no-prefix-filters", negatable = true, description = "With --prefix-bytes: run both engines "
            + "without prefix extractors (so without prefix filters), the keys keeping their prefixes; to measure what "
            + "prefix filters cost the point workloads (default: with them).")
    boolean prefixFilters = true;

    @Option(names = "--warmup-keys", description = "Keys of the untimed warm-up run on each engine before it is "
            + "measured (JIT compilation, heap growth), 0 for none (default: ${DEFAULT-VALUE}).")
    int warmUpKeys = 200_000;

    /**
     * The manystores workload ({@link ManyStoresBench}): BloomStore against RocksDB with its
     * defaults and with one shared cache and write-buffer manager, each in a JVM of its own.
     */
    private int manyStores() throws IOException {
        if (workloads.size() != 1) {
            throw usage("manystores runs alone, each engine in a JVM of its own: give --workloads manystores only");
        }
        if (stores <= 0 || keys <= 0 || repeat <= 0) {
            throw usage("--stores, --keys and --repeat must be positive");
        }
        Path root = data != null ? data : Files.createTempDirectory("bloomstore-manystores");
        ManyStoresBench.run(root, stores, keys, repeat, spec.commandLine().getOut());
        return 0;
    }

    /**
     * The counters workload ({@link CountersBench}): int64Add merges against read-modify-write, and
     * against RocksDB's uint64add merge operator.
     */
    private int counters() throws IOException {
        if (workloads.size() != 1) {
            throw usage("counters runs alone: give --workloads counters only");
        }
        if (counterCount <= 0 || increments <= 0 || repeat <= 0) {
            throw usage("--counters, --increments and --repeat must be positive");
        }
        Path root = data != null ? data : Files.createTempDirectory("bloomstore-counters");
        CountersBench.run(root, counterCount, increments, repeat, spec.commandLine().getOut());
        return 0;
    }

    @Option(names = "--counters", paramLabel = "N", description = "Counters of the counters workload "
            + "(default: ${DEFAULT-VALUE}).")
    int counterCount = 1000;

    @Option(names = "--increments", paramLabel = "N", description = "Increments of the counters workload, spread "
            + "uniformly over the counters (default: ${DEFAULT-VALUE}).")
    int increments = 1_000_000;

    /**
     * The deleterange workload ({@link RangeDeleteBench}): a scan over a range just deleted with one
     * range deletion against one tombstone per key, BloomStore and RocksDB, in this JVM.
     */
    private int deleteRange() throws IOException {
        if (workloads.size() != 1) {
            throw usage("deleterange runs alone: give --workloads deleterange only");
        }
        if (repeat <= 0) {
            throw usage("--repeat must be positive: " + repeat);
        }
        Path root = data != null ? data : Files.createTempDirectory("bloomstore-deleterange");
        RangeDeleteBench.run(root, config(), factory, repeat, spec.commandLine().getOut());
        return 0;
    }

    /** The command with the standard engines. */
    public BenchCommand() {
        this(EngineFactory.standard());
    }

    /** The command choosing among {@code factory}'s engines. */
    public BenchCommand(EngineFactory factory) {
        this.factory = factory;
    }

    @Option(names = "--stores", paramLabel = "N", description = "Stores of the manystores workload, each with --keys "
            + "keys (default: ${DEFAULT-VALUE}).")
    int stores = 100;

    @Override
    public Integer call() throws IOException {
        if (workloads != null && workloads.contains("manystores")) {
            return manyStores();
        }
        if (workloads != null && workloads.contains("counters")) {
            return counters();
        }
        if (workloads != null && workloads.contains("ingest")) {
            if (workloads.size() != 1 || keys <= 0 || repeat <= 0) {
                throw usage("ingest runs alone (--workloads ingest only), with positive --keys and --repeat");
            }
            Path root = data != null ? data : Files.createTempDirectory("bloomstore-ingest");
            IngestBench.run(root, keys, valueSize, repeat, spec.commandLine().getOut());
            return 0;
        }
        if (workloads != null && workloads.contains("deleterange")) {
            return deleteRange();
        }
        BenchConfig config = config();
        List<String> engineNames = engines == null || engines.isEmpty() ? factory.defaultNames() : engines;
        for (String e : engineNames) {
            if (!factory.names().contains(e)) {
                throw usage("unknown engine '" + e + "'; known: " + String.join(", ", factory.names()));
            }
        }
        requirePeerLibraries(engineNames, getClass().getClassLoader());
        List<Workload> chosen = new ArrayList<>();
        try {
            for (String w : workloads == null || workloads.isEmpty() ? allWorkloadNames() : workloads) {
                chosen.add(Workload.byCliName(w));
            }
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        ScanConfig scans = scanConfig();
        if (!scans.hasPrefixes() && chosen.stream().anyMatch(Workload::isScan)) {
            throw usage("the scan workloads need keys with a prefix structure: give --prefix-bytes (1-4)");
        }
        Path root = data != null ? data : Files.createTempDirectory("bloomstore-bench");
        for (String e : engineNames) {
            Path dir = root.resolve(e);
            if (data != null && Files.isDirectory(dir) && !isEmpty(dir)) {
                throw usage(dir + " already exists and is not empty; choose another --data directory");
            }
        }
        if (warmUpKeys < 0) {
            throw usage("--warmup-keys must not be negative: " + warmUpKeys);
        }
        if (repeat <= 0) {
            throw usage("--repeat must be positive: " + repeat);
        }
        if (coldOps < 0) {
            throw usage("--cold-ops must not be negative: " + coldOps);
        }
        if (!(writerRate >= 0) || Double.isInfinite(writerRate)) {
            throw usage("--writer-rate must be a non-negative number of puts per second: " + writerRate);
        }
        if (chosen.contains(Workload.OPEN)) {
            for (String e : engineNames) {
                if (!ChildJvm.canCreate(e)) {
                    throw usage("the open workload runs in a child JVM, which cannot create engine '" + e + "'");
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        HeapSizing.keepCommitted();
        MachineInfo machine = MachineInfo.current();
        out.println("bloomstore bench: " + String.join(", ", engineNames) + " on " + machine.describe());
        if (walBuffer > 0) {
            out.println("--wal-buffer " + walBuffer + ": BloomStore's writes that do not sync wait in the process until "
                    + walBuffer + " bytes of WAL records gather (a process crash may lose them, as mvstore loses its"
                    + " last auto-commit)");
        }
        if (directReads) {
            List<String> cached = engineNames.stream().filter(PEERS::contains).toList();
            if (!cached.isEmpty()) {
                out.println("--direct-reads: " + String.join(", ", cached) + " cannot bypass the page cache and read"
                        + " through it");
            }
        }
        if (writerRate > 0 && chosen.contains(Workload.READWHILEWRITING)) {
            out.println("readwhilewriting's writer paced to " + Units.count(Math.round(writerRate)) + " puts/s");
        }
        if (oneShotRuns < 0) {
            throw usage("--one-shot must not be negative: " + oneShotRuns);
        }
        if (oneShotRuns > 0 && (!engineNames.contains("bloomstore") || OneShotProbe.runningJar() == null)) {
            throw usage("--one-shot times the commands of bloomstore.jar on the bloomstore engine's store: run the jar"
                    + " with the bloomstore engine");
        }
        BenchResults run;
        List<OneShotResult> oneShot = List.of();
        Exception oneShotFailure = null;
        try {
            run = new BenchRunner(config, scans, factory, noProgress || !Terminal.showsProgress() ? null : System.err,
                    warmUpKeys)
                    .withColdOps(coldOps).withWriterRate(writerRate).run(engineNames, chosen, root, repeat);
            if (oneShotRuns > 0) {
                try {
                    oneShot = OneShotProbe.run(root.resolve("bloomstore"), config, oneShotRuns, 0);
                } catch (IOException | RuntimeException e) {
                    // The other workloads' results are printed all the same; the failure is reported after them.
                    oneShotFailure = e;
                }
            }
        } finally {
            if (!keep) {
                for (String e : engineNames) {
                    BenchRunner.deleteRecursively(root.resolve(e));
                    BenchRunner.deleteRecursively(root.resolve(e + BenchRunner.COLD_SUFFIX));
                }
                if (data == null) {
                    Files.deleteIfExists(root);
                }
            } else {
                out.println("stores kept in " + root);
            }
            out.flush();
        }
        ResultTable.print(out, run);
        OneShotProbe.print(out, oneShot, oneShotRuns);
        new Headline(run.results()).print(out);
        out.println("RocksDB statistics: " + RocksDbEngine.STATS_LEVEL);
        if (json != null) {
            JsonReport.write(json, config, machine, run, coldOps, oneShot, writerRate);
            out.println("JSON written to " + json);
        }
        if (report != null) {
            HtmlReport.write(report, config, machine, run);
            out.println("report written to " + report);
        }
        out.flush();
        if (oneShotFailure instanceof IOException io) {
            throw io;
        }
        if (oneShotFailure instanceof RuntimeException re) {
            throw re;
        }
        return 0;
    }

    private BenchConfig config() {
        try {
            BenchConfig.Compression c = choice(BenchConfig.Compression.class, "--compression", compression);
            BenchConfig.Distribution d = choice(BenchConfig.Distribution.class, "--distribution", distribution);
            // --wal-buffer is BloomStore's walBufferBytes: its own rule says what it takes.
            io.bloomstore.core.StoreOptions.builder().walBufferBytes(walBuffer).build();
            return new BenchConfig(keys, keySize, valueSize, threads, reads, duration, bitsPerKey,
                    FilterKind.byCliName(filterKind), blockCacheMb << 20, memtableMb << 20, c, missingFraction,
                    BenchConfig.defaults().scanLength(), seed, d, directReads, walBuffer);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** The constant of {@code type} named {@code value} in any case; a clear error listing the choices otherwise. */
    private static <E extends Enum<E>> E choice(Class<E> type, String option, String value) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(value.trim())) {
                return e;
            }
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            names.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException(option + " must be one of " + String.join(", ", names) + ": '" + value + "'");
    }

    private ScanConfig scanConfig() {
        try {
            ScanConfig scans = new ScanConfig(prefixBytes, keysPerPrefix, rangeLength, rangeFilterBits, prefixFilters);
            new KeySpace(keys, keySize, scans);
            return scans;
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** The default workloads ({@link Workload#isDefault()}): not open, and not the scans, which need a prefix structure. */
    private static List<String> allWorkloadNames() {
        List<String> names = new ArrayList<>();
        for (Workload w : Workload.values()) {
            if (w.isDefault()) {
                names.add(w.cliName());
            }
        }
        return names;
    }

    /**
     * The peers' libraries are not in bloomstore.jar but in bloomstore-peers.jar beside it (named by
     * its manifest's Class-Path, so that a one-shot command's start does not read their entries): a
     * jar copied without it says so here instead of failing on a missing class.
     */
    static void requirePeerLibraries(List<String> engineNames, ClassLoader loader) {
        for (String e : engineNames) {
            String probe = PEER_PROBES.get(e);
            if (probe != null && loader.getResource(probe) == null) {
                throw new CliException(ExitCodes.IO, "engine " + e + " needs the peers' libraries: bloomstore-peers.jar"
                        + " beside bloomstore.jar (mvn package builds both into store-cli/target; copy them together)");
            }
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
