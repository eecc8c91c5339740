package io.bloomstore.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.slf4j.LoggerFactory;

/**
 * The cold figure: in a fresh JVM ({@link ChildJvm}), with no warm-up, an engine opens an empty
 * store in a scratch directory and does its first {@code ops} operations — random puts of the
 * run's keys and values — and then {@code ops} random lookups of the keys it wrote. Both phases
 * are timed from their first operation to their last; the time from the JVM's start to the open
 * store is reported apart ({@link ColdResult#startupMillis()}). Each phase also records the processor
 * time of the whole process, of the measuring thread and of the JIT compiler threads (on Linux,
 * from {@code /proc}: {@link CompilerThreads}): on a machine with few cores the JIT compilers and
 * the engine's background threads compete with the measured one, and the differences say how much. As in the open probe ({@link OpenProbe}), the child starts its logging
 * before the engine opens: an application's logging runs before it opens a store, and otherwise
 * the first line BloomStore logs (a write held for a flush is logged at INFO) started logback
 * inside the timed puts, some 20 ms of a fresh JVM on the writer's thread; RocksDB logs through
 * its own native code.
 *
 * <p>Thread safety: stateless; {@link #run} blocks until its child has finished.
 */
final class ColdProbe {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ColdProbe() {
    }

    /** Runs the probe for {@code engine} in a child JVM, in the scratch directory {@code dir} (deleted after). */
    static ColdResult run(String engine, Path dir, BenchConfig config, int ops, int round) throws IOException {
        BenchRunner.deleteRecursively(dir);
        Files.createDirectories(dir);
        try {
            JsonNode r = MAPPER.readTree(ChildJvm.run(List.of(BenchChild.COLD, engine, dir.toString(),
                    MAPPER.writeValueAsString(config), Integer.toString(ops))));
            return new ColdResult(engine, round, ops, r.get("startupMillis").asDouble(),
                    r.get("fillOpsPerSec").asDouble(), r.get("readOpsPerSec").asDouble(),
                    r.get("fillCpuMillis").asDouble(), r.get("readCpuMillis").asDouble(),
                    r.get("fillThreadCpuMillis").asDouble(), r.get("readThreadCpuMillis").asDouble(),
                    r.get("fillJitCpuMillis").asDouble(), r.get("readJitCpuMillis").asDouble());
        } finally {
            BenchRunner.deleteRecursively(dir);
        }
    }

    /** The child's side: runs in the fresh JVM and returns its result as JSON. */
    static String measure(BenchEngine engine, Path dir, BenchConfig config, int ops) throws IOException {
        KeySpace keys = new KeySpace(config.keys(), config.keySize());
        ValueSource values = new ValueSource(config.valueSize(), config.seed());
        byte[] key = keys.newKeyBuffer();
        byte[] value = values.newValueBuffer();
        LoggerFactory.getLogger(ColdProbe.class).debug("cold probe of {} in {}", engine, dir);
        engine.open(dir, config);
        double startupMillis = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        long seed = config.seed() ^ 0xC01DL;
        SplittableRandom random = new SplittableRandom(seed);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long p0 = processCpuNanos();
        long j0 = CompilerThreads.nanos();
        long m0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            keys.present(random.nextInt(config.keys()), key);
            values.fill(random, value);
            engine.put(key, value);
        }
        long t1 = System.nanoTime();
        long p1 = processCpuNanos();
        long j1 = CompilerThreads.nanos();
        long m1 = threads.getCurrentThreadCpuTime();
        SplittableRandom again = new SplittableRandom(seed);
        long found = 0;
        for (int i = 0; i < ops; i++) {
            keys.present(again.nextInt(config.keys()), key);
            values.fill(again, value);
            if (engine.get(key, value) != BenchEngine.NOT_FOUND) {
                found++;
            }
        }
        long t2 = System.nanoTime();
        long p2 = processCpuNanos();
        long j2 = CompilerThreads.nanos();
        long m2 = threads.getCurrentThreadCpuTime();
        if (found != ops) {
            throw new IllegalStateException("cold probe found " + found + " of the " + ops + " keys it wrote");
        }
        return MAPPER.createObjectNode().put("startupMillis", startupMillis)
                .put("fillOpsPerSec", ops / ((t1 - t0) / 1e9)).put("readOpsPerSec", ops / ((t2 - t1) / 1e9))
                .put("fillCpuMillis", (p1 - p0) / 1e6).put("readCpuMillis", (p2 - p1) / 1e6)
                .put("fillThreadCpuMillis", (m1 - m0) / 1e6).put("readThreadCpuMillis", (m2 - m1) / 1e6)
                .put("fillJitCpuMillis", jitMillis(j0, j1)).put("readJitCpuMillis", jitMillis(j1, j2))
                .toString();
    }

    /** The compiler threads' processor time between two readings, in ms; -1 where they were not found. */
    private static double jitMillis(long from, long to) {
        return from < 0 || to < 0 ? -1 : (to - from) / 1e6;
    }

    /** Processor time of this process so far (all its threads), or 0 where the JVM does not say. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }
}
