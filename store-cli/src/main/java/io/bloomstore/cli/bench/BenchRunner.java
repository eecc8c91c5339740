package io.bloomstore.cli.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Runs the workloads on each engine in turn, in a directory of its own, and measures them.
 * A fill starts from an empty store; before the first read workload the store is loaded (by
 * the last fill, or by an untimed random fill when no fill was asked for) and
 * {@link BenchEngine#prepareForReads} moves everything into tables. Every engine does the
 * same operations on the same keys: all random choices come from the configured seed.
 *
 * <p>Fairness between engines run one after another in one JVM: before the first round every
 * engine gets an untimed warm-up in a scratch directory — a random fill of {@code warmUpKeys}
 * keys, {@link BenchEngine#prepareForReads}, then every workload of the run for up to
 * {@code warmUpKeys} operations or {@link #WARM_UP_NANOS_PER_WORKLOAD}, each through the same
 * worker loop that measures it — so that the JIT has compiled that loop and the engine's code
 * under it, for every engine, before anything is timed, and the heap has grown. Otherwise the
 * first round measured each workload while the compiler was still working on it (BloomStore's
 * first-round missing lookups ran at about half the later rounds' speed), and an engine's
 * later rounds ran code recompiled once the other engines had run. Before each measured
 * workload the heap is collected ({@link System#gc()}), so no workload pays for the garbage
 * of the one before, or of another engine; {@link HeapSizing} keeps that collection from
 * shrinking the heap, which the next workload would pay for in page faults.
 *
 * <p>Rounds ({@link #run(List, List, Path, int)}): every engine runs every workload once per
 * round, and the order of the engines is rotated by one each round, so that no engine always
 * runs first (or last) on a machine whose speed drifts.
 *
 * <p>Child JVMs: for engines a fresh JVM can create ({@link EngineFactory#standard()}), each
 * round also measures a cold start ({@link ColdProbe}, unless {@code coldOps} is 0) and, when
 * asked for, {@link Workload#OPEN} ({@link OpenProbe}), each in a JVM of its own.
 *
 * <p>Thread safety: one {@link #run} at a time; it starts and joins its own worker threads.
 */
public final class BenchRunner {
    /** The longest an engine's warm-up runs one workload. */
    static final long WARM_UP_NANOS_PER_WORKLOAD = 1_500_000_000L;
    /** Suffix of the scratch directory of an engine's warm-up, next to its own directory. */
    public static final String WARM_UP_SUFFIX = "-warmup";
    /** Suffix of the scratch directory of an engine's cold-start probe. */
    public static final String COLD_SUFFIX = "-cold";

    private final BenchConfig config;
    private final EngineFactory factory;
    private final PrintStream progressOut;
    /** The keys, values and choices every worker shares. */
    private final BenchOperations ops;
    private final int warmUpKeys;
    private int coldOps;
    /** readwhilewriting's writer's puts per second, 0 for as fast as it can ({@link WritePacer}). */
    private double writerRate;
    private final ScanConfig scans;

    /** A runner without warm-up; {@code progressOut} receives progress bars, null for none. */
    public BenchRunner(BenchConfig config, EngineFactory factory, PrintStream progressOut) {
        this(config, factory, progressOut, 0);
    }

    /**
     * A runner that warms each engine up with {@code warmUpKeys} keys (at most the configured
     * key count; 0 for no warm-up) before measuring it.
     */
    public BenchRunner(BenchConfig config, EngineFactory factory, PrintStream progressOut, int warmUpKeys) {
        this(config, ScanConfig.none(), factory, progressOut, warmUpKeys);
    }

    /** As above, with the key prefix structure and scan filters of the scan workloads. */
    public BenchRunner(BenchConfig config, ScanConfig scans, EngineFactory factory, PrintStream progressOut,
                       int warmUpKeys) {
        if (warmUpKeys < 0) {
            throw new IllegalArgumentException("warm-up keys must not be negative: " + warmUpKeys);
        }
        this.warmUpKeys = Math.min(warmUpKeys, config.keys());
        this.config = config;
        this.factory = factory;
        this.progressOut = progressOut;
        this.scans = scans;
        this.ops = new BenchOperations(config, scans);
    }

    /** Also measures a cold start of {@code ops} operations per engine and round; 0 for none (the default). */
    public BenchRunner withColdOps(int ops) {
        if (ops < 0) {
            throw new IllegalArgumentException("cold operations must not be negative: " + ops);
        }
        this.coldOps = ops;
        return this;
    }

    /**
     * Paces readwhilewriting's writer to {@code opsPerSecond} evenly spaced puts a second, every
     * engine alike ({@link WritePacer}); 0 for as fast as it can (the default).
     */
    public BenchRunner withWriterRate(double opsPerSecond) {
        new WritePacer(opsPerSecond, WritePacer.SYSTEM);
        this.writerRate = opsPerSecond;
        return this;
    }

    /** Runs every workload on every engine once (both in the given order of engines, workload order of {@link Workload}). */
    public List<WorkloadResult> run(List<String> engines, List<Workload> workloads, Path dataRoot) throws IOException {
        return run(engines, workloads, dataRoot, 1).results();
    }

    /**
     * Runs {@code rounds} rounds; in round r the engines start at position r of the given list
     * (wrapping), so each engine runs first in turn.
     */
    public BenchResults run(List<String> engines, List<Workload> workloads, Path dataRoot, int rounds)
            throws IOException {
        if (rounds <= 0) {
            throw new IllegalArgumentException("rounds must be positive: " + rounds);
        }
        HeapSizing.keepCommitted();
        List<Workload> ordered = workloads.stream().distinct().sorted(Comparator.comparingInt(Workload::runOrder)).toList();
        boolean open = ordered.contains(Workload.OPEN);
        for (String name : engines) {
            if (open && !ChildJvm.canCreate(name)) {
                throw new IllegalArgumentException("the open workload needs an engine a child JVM can create: "
                        + "not '" + name + "'");
            }
        }
        List<Workload> inProcess = ordered.stream().filter(w -> !w.isOpen()).toList();
        List<WorkloadResult> results = new ArrayList<>();
        List<ColdResult> cold = new ArrayList<>();
        List<OpenResult> opened = new ArrayList<>();
        List<CloseResult> closes = new ArrayList<>();
        List<LoadCost> filters = new ArrayList<>();
        Map<String, TimeSpent> time = new LinkedHashMap<>();
        for (String name : engines) {
            time.put(name, new TimeSpent(name));
        }
        if (warmUpKeys > 0) {
            for (String name : engines) {
                long t0 = System.nanoTime();
                warmUp(name, dataRoot.resolve(name + WARM_UP_SUFFIX), inProcess);
                time.get(name).add(TimeSpent.Phase.WARM_UP, System.nanoTime() - t0);
            }
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < engines.size(); i++) {
                String name = engines.get((i + round) % engines.size());
                TimeSpent spent = time.get(name);
                long t0 = System.nanoTime();
                if (coldOps > 0 && ChildJvm.canCreate(name)) {
                    cold.add(ColdProbe.run(name, dataRoot.resolve(name + COLD_SUFFIX), config, coldOps, round));
                }
                spent.add(TimeSpent.Phase.COLD_PROBE, System.nanoTime() - t0);
                Path dir = dataRoot.resolve(name);
                results.addAll(runEngine(name, inProcess, dir, open, round, spent, closes, filters));
                if (open) {
                    long t2 = System.nanoTime();
                    opened.add(OpenProbe.run(name, dir, config, round));
                    spent.add(TimeSpent.Phase.OPEN_PROBE, System.nanoTime() - t2);
                }
            }
        }
        return new BenchResults(rounds, results, cold, opened, closes, List.copyOf(time.values()), filters);
    }

    /**
     * Runs {@code workloads} on a fresh store in {@code dir}; with {@code loadForOpen} the store is
     * left loaded, flushed and settled for {@link OpenProbe} to reopen. Every fill is followed at
     * once by a timed close (added to {@code closes}), and so is every other workload that writes
     * (updaterandom, readlatest, readwhilewriting); the next workload reopens the store. The
     * filters' cost per key is read once the loaded store first settles (added to {@code filters}).
     */
    private List<WorkloadResult> runEngine(String name, List<Workload> workloads, Path dir, boolean loadForOpen,
            int round, TimeSpent spent, List<CloseResult> closes, List<LoadCost> filters) throws IOException {
        List<WorkloadResult> results = new ArrayList<>();
        BenchEngine engine = null;
        boolean loaded = false;
        // Bytes sent to storage when the latest fill (or load) started: its write amplification
        // is read at the end of the first settle.
        long writtenAtFill = -1;
        try {
            for (Workload w : workloads) {
                if (w.isFill()) {
                    engine = reopenEmpty(engine, name, dir);
                    writtenAtFill = ProcIo.storageWriteBytes();
                    results.add(timed(spent, TimeSpent.Phase.MEASURED, engine, e -> measure(name, e, w, w.cliName(), round, dir)));
                    closes.add(timedClose(name, engine, w, round));
                    engine = null;
                    loaded = true;
                    continue;
                }
                if (!loaded) {
                    engine = reopenEmpty(engine, name, dir);
                    writtenAtFill = ProcIo.storageWriteBytes();
                    timed(spent, TimeSpent.Phase.LOAD, engine, e -> measure(name, e, Workload.FILLRANDOM, "load", round, dir));
                    loaded = true;
                }
                engine = reopenLoaded(engine, name, dir, spent);
                timed(spent, TimeSpent.Phase.SETTLE, engine, e -> {
                    e.prepareForReads();
                    return null;
                });
                if (filters.stream().noneMatch(f -> f.engine().equals(name) && f.round() == round)) {
                    long writtenNow = ProcIo.storageWriteBytes();
                    filters.add(new LoadCost(name, round, engine.filterBitsPerKey(),
                            writtenAtFill < 0 || writtenNow < 0 ? -1 : writtenNow - writtenAtFill,
                            (long) config.keys() * (config.keySize() + config.valueSize()), bytesOnDisk(dir)));
                }
                results.add(timed(spent, TimeSpent.Phase.MEASURED, engine, e -> measure(name, e, w, w.cliName(), round, dir)));
                if (w.writes()) {
                    closes.add(timedClose(name, engine, w, round));
                    engine = null;
                }
            }
            if (loadForOpen) {
                if (!loaded) {
                    engine = reopenEmpty(engine, name, dir);
                    timed(spent, TimeSpent.Phase.LOAD, engine, e -> measure(name, e, Workload.FILLRANDOM, "load", round, dir));
                }
                engine = reopenLoaded(engine, name, dir, spent);
                timed(spent, TimeSpent.Phase.SETTLE, engine, e -> {
                    e.prepareForReads();
                    return null;
                });
            }
        } finally {
            if (engine != null) {
                engine.close();
            }
        }
        return results;
    }

    /** Closes {@code engine} right after workload {@code w}, which wrote, and times the close. */
    private static CloseResult timedClose(String name, BenchEngine engine, Workload w, int round) throws IOException {
        long t0 = System.nanoTime();
        engine.close();
        return new CloseResult(name, round, w, (System.nanoTime() - t0) / 1e6);
    }

    /** The open engine, or, after a fill's timed close, the store of {@code dir} reopened (counted as loading). */
    private BenchEngine reopenLoaded(BenchEngine engine, String name, Path dir, TimeSpent spent) throws IOException {
        if (engine != null) {
            return engine;
        }
        long t0 = System.nanoTime();
        BenchEngine reopened = factory.create(name);
        reopened.configureScans(scans);
        reopened.open(dir, config);
        spent.add(TimeSpent.Phase.LOAD, System.nanoTime() - t0);
        return reopened;
    }

    /** A step of an engine's run, its wall-clock time added to {@code phase}. */
    private interface Step<T> {
        T run(BenchEngine engine) throws IOException;
    }

    private static <T> T timed(TimeSpent spent, TimeSpent.Phase phase, BenchEngine engine, Step<T> step)
            throws IOException {
        long t0 = System.nanoTime();
        try {
            return step.run(engine);
        } finally {
            spent.add(phase, System.nanoTime() - t0);
        }
    }

    /**
     * Untimed, in a scratch directory deleted afterwards: a random fill of {@link #warmUpKeys}
     * keys, then each of {@code workloads} for up to {@link #warmUpKeys} operations or
     * {@link #WARM_UP_NANOS_PER_WORKLOAD}, through the measured worker loop. Nothing is recorded.
     */
    private void warmUp(String name, Path dir, List<Workload> workloads) throws IOException {
        deleteRecursively(dir);
        Files.createDirectories(dir);
        BenchEngine engine = factory.create(name);
        try (ProgressBar quiet = progressBar(null, name + " warm-up", warmUpKeys)) {
            engine.configureScans(scans);
            engine.open(dir, config);
            new BenchWorker(ops, engine, Workload.FILLRANDOM, 0, 0, warmUpKeys, Long.MAX_VALUE, quiet).run();
            engine.prepareForReads();
            for (Workload w : workloads) {
                long deadline = System.nanoTime() + WARM_UP_NANOS_PER_WORKLOAD;
                if (w == Workload.READWHILEWRITING) {
                    warmUpBesideWriter(engine, deadline, quiet);
                } else {
                    new BenchWorker(ops, engine, w, 0, 0, warmUpKeys, deadline, quiet).run();
                }
            }
        } finally {
            engine.close();
            deleteRecursively(dir);
        }
    }

    /**
     * readwhilewriting's warm-up with its writer running, as measured, for every engine: without
     * it the readers' code was compiled for a memtable nobody writes to, and the measured run threw
     * away and recompiled the lookup path (DbRead.get, MemTable.get, TableReader.lookup: 1,185
     * compilations, 606 of them BloomStore's, in one 2-second measured readwhilewriting; 133 and
     * 65 with the writer warmed up too), its reads running slower code meanwhile.
     */
    private void warmUpBesideWriter(BenchEngine engine, long deadline, ProgressBar quiet) throws IOException {
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writerThread = Executors.newSingleThreadExecutor();
        try {
            Future<Long> writer = writerThread.submit(() -> overwriteUntil(engine, stop));
            new BenchWorker(ops, engine, Workload.READWHILEWRITING, 0, 0, warmUpKeys, deadline, quiet).run();
            stop.set(true);
            join(writer);
        } finally {
            stop.set(true);
            writerThread.shutdownNow();
        }
    }

    private BenchEngine reopenEmpty(BenchEngine previous, String name, Path dir) throws IOException {
        if (previous != null) {
            previous.close();
        }
        deleteRecursively(dir);
        Files.createDirectories(dir);
        BenchEngine engine = factory.create(name);
        engine.configureScans(scans);
        engine.open(dir, config);
        return engine;
    }

    /**
     * Runs {@code w} on all threads and measures it, with the reads of the device holding
     * {@code dir}; {@code task} labels its progress bar.
     */
    private WorkloadResult measure(String name, BenchEngine engine, Workload w, String task, int round, Path dir)
            throws IOException {
        long totalOps = w.isFill() ? config.keys() : config.reads();
        if (w == Workload.FILLRANDOM) {
            ops.randomOrder();
        }
        if (w.isFill()) {
            ops.filledRandomly = w == Workload.FILLRANDOM;
            ops.latestReserved.set(0);
            ops.latestInserted.set(0);
        }
        int threads = config.threads();
        EngineCounters before = engine.counters();
        Optional<ProcIo> ioBefore = ProcIo.read();
        Optional<DeviceIo> deviceBefore = DeviceIo.read(dir);
        AtomicBoolean stopWriter = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads + (w == Workload.READWHILEWRITING ? 1 : 0));
        System.gc();
        try (ProgressBar bar = progressBar(name + " " + task, totalOps)) {
            long start = System.nanoTime();
            long deadline = !w.isFill() && config.durationSeconds() > 0
                    ? start + config.durationSeconds() * 1_000_000_000L : Long.MAX_VALUE;
            List<Future<BenchWorker.Outcome>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long share = totalOps / threads + (t < totalOps % threads ? 1 : 0);
                long first = t * (totalOps / threads) + Math.min(t, totalOps % threads);
                BenchWorker worker = new BenchWorker(ops, engine, w, t, first, share, deadline, bar);
                futures.add(pool.submit(worker::run));
            }
            Future<Long> writer = w == Workload.READWHILEWRITING
                    ? pool.submit(() -> overwriteUntil(engine, stopWriter)) : null;
            LatencyHistogram latency = new LatencyHistogram();
            long ops = 0;
            long found = 0;
            for (Future<BenchWorker.Outcome> f : futures) {
                BenchWorker.Outcome outcome = join(f);
                latency.merge(outcome.latency());
                ops += outcome.ops();
                found += outcome.found();
            }
            stopWriter.set(true);
            long writerOps = writer == null ? 0 : join(writer);
            double seconds = (System.nanoTime() - start) / 1e9;
            EngineCounters delta = engine.counters().minus(before);
            Optional<ProcIo> io = ioBefore.flatMap(b -> ProcIo.read().map(a -> a.minus(b)));
            Optional<DeviceIo> device = deviceBefore.flatMap(b -> DeviceIo.read(dir).map(a -> a.minus(b)));
            return new WorkloadResult(name, w, ops, seconds, latency.micros(0.50), latency.micros(0.99),
                    latency.micros(0.999), found, delta, io, round, writerOps, device);
        } finally {
            stopWriter.set(true);
            pool.shutdownNow();
        }
    }

    /**
     * readwhilewriting's writer: overwrites keys chosen as the readers choose them, paced to
     * {@link #writerRate} when it is set; returns its puts.
     */
    private long overwriteUntil(BenchEngine engine, AtomicBoolean stop) throws IOException {
        SplittableRandom random = new SplittableRandom(config.seed() ^ 0x5EEDL);
        byte[] key = ops.keySpace.newKeyBuffer();
        byte[] value = ops.values.newValueBuffer();
        WritePacer pacer = new WritePacer(writerRate, WritePacer.SYSTEM);
        long puts = 0;
        // At least one put, however soon the readers finish: a warm-up always compiles the writer's path.
        do {
            pacer.awaitTurn();
            ops.keySpace.present(ops.chooser.next(random), key);
            ops.values.fill(random, value);
            engine.put(key, value);
            puts++;
        } while (!stop.get());
        return puts;
    }

    private ProgressBar progressBar(String task, long total) {
        return progressBar(progressOut, task, total);
    }

    /** A progress bar printing to {@code out}, or a silent one when {@code out} is null. */
    private static ProgressBar progressBar(PrintStream out, String task, long total) {
        ProgressBarBuilder builder = new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).showSpeed();
        if (out != null) {
            builder.setConsumer(new ConsoleProgressBarConsumer(out));
        } else {
            builder.setConsumer(new SilentConsumer());
        }
        return builder.build();
    }

    private static <T> T join(Future<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("benchmark interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(cause);
        }
    }

    /** The bytes of the regular files under {@code dir}; -1 when they cannot be listed. */
    static long bytesOnDisk(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0; // a file deleted by the engine's background work while listed
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
