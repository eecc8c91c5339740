package io.bloomstore.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * The {@code open} workload: an engine's loaded, flushed and closed store is reopened in a fresh
 * JVM ({@link ChildJvm}) — measured in a process of its own because heap and resident set are
 * properties of a process, and the parent's are full of the other engines' runs. The child
 * starts its logging, records its heap (after {@link System#gc()}) before touching the engine, times
 * making the engine object (its class's initialisation: RocksDB's loads its native library, as
 * {@code RocksDB.loadLibrary()} does in an application before its first open) and then the first
 * open (the engine's first use in the process: the rest of its class loading and initialisation),
 * times closing it right away (a short session's close) and a second open (the cost that depends on the store's size), takes
 * heap, resident set ({@code VmRSS}) and the engine's {@link EngineMemory}, does
 * {@value #READS} random lookups of loaded keys, takes heap and resident set again, and sums the
 * bytes of the store's files.
 *
 * <p>Thread safety: stateless; {@link #run} blocks until its child has finished.
 */
final class OpenProbe {
    /** Random lookups after open, as the scale issue asks. */
    static final int READS = 100_000;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Path SELF_STATUS = Path.of("/proc/self/status");

    private OpenProbe() {
    }

    /** Reopens {@code engine}'s store in {@code dir} in a child JVM. */
    static OpenResult run(String engine, Path dir, BenchConfig config, int round) throws IOException {
        JsonNode r = MAPPER.readTree(ChildJvm.run(List.of(BenchChild.OPEN, engine, dir.toString(),
                MAPPER.writeValueAsString(config), Integer.toString(READS))));
        EngineMemory memory = new EngineMemory(r.get("filterBytesMapped").asLong(), r.get("indexHeapBytes").asLong(),
                r.get("nativeTableBytes").asLong());
        return new OpenResult(engine, round, config.keys(), r.get("loadMillis").asDouble(), r.get("openMillis").asDouble(),
                r.get("closeMillis").asDouble(), r.get("reopenMillis").asDouble(),
                r.get("heapAfterOpenBytes").asLong(), r.get("heapAfterReadsBytes").asLong(),
                r.get("rssAfterOpenBytes").asLong(), r.get("rssAfterReadsBytes").asLong(), r.get("reads").asLong(),
                r.get("readOpsPerSec").asDouble(), memory, r.get("dataBytesOnDisk").asLong(),
                r.get("baselineHeapBytes").asLong());
    }

    /** The child's side: runs in the fresh JVM and returns its result as JSON. */
    static String measure(EngineFactory factory, String engineName, Path dir, BenchConfig config, int reads)
            throws IOException {
        // An application has its logging running before it opens a store. Without this, the first
        // logger BloomStore's classes make would start logback inside the timed open (about 0.1 s
        // of a fresh JVM), a cost of the bench's logging set-up, not of the engine; RocksDB logs
        // through its own native code.
        LoggerFactory.getLogger(OpenProbe.class).debug("open probe of {} in {}", engineName, dir);
        long baselineHeap = heapUsed();
        KeySpace keys = new KeySpace(config.keys(), config.keySize());
        byte[] key = keys.newKeyBuffer();
        byte[] value = new byte[config.valueSize()];
        long tl = System.nanoTime();
        try (BenchEngine engine = factory.create(engineName)) {
            double loadMillis = (System.nanoTime() - tl) / 1e6;
            return measure(engine, dir, config, reads, loadMillis, baselineHeap, keys, key, value);
        }
    }

    private static String measure(BenchEngine engine, Path dir, BenchConfig config, int reads, double loadMillis,
                                  long baselineHeap, KeySpace keys, byte[] key, byte[] value) throws IOException {
        long t0 = System.nanoTime();
        engine.open(dir, config);
        double openMillis = (System.nanoTime() - t0) / 1e6;
        long tc = System.nanoTime();
        engine.close();
        long t1 = System.nanoTime();
        double closeMillis = (t1 - tc) / 1e6;
        engine.open(dir, config);
        double reopenMillis = (System.nanoTime() - t1) / 1e6;
        long heapAfterOpen = heapUsed();
        long rssAfterOpen = residentSetBytes();
        SplittableRandom random = new SplittableRandom(config.seed() ^ 0x0BE4L);
        long found = 0;
        long t2 = System.nanoTime();
        for (int i = 0; i < reads; i++) {
            keys.present(random.nextInt(config.keys()), key);
            if (engine.get(key, value) != BenchEngine.NOT_FOUND) {
                found++;
            }
        }
        double readSeconds = (System.nanoTime() - t2) / 1e9;
        if (found != reads) {
            throw new IllegalStateException("the reopened store found " + found + " of " + reads + " loaded keys");
        }
        long heapAfterReads = heapUsed();
        long rssAfterReads = residentSetBytes();
        // After the reads: BloomStore decodes a table's index on first use, so what an open holds
        // is not what a store in use holds.
        EngineMemory memory = engine.memory();
        engine.close();
        return MAPPER.createObjectNode().put("loadMillis", loadMillis).put("openMillis", openMillis).put("closeMillis", closeMillis).put("reopenMillis", reopenMillis).put("baselineHeapBytes", baselineHeap)
                .put("heapAfterOpenBytes", heapAfterOpen).put("heapAfterReadsBytes", heapAfterReads)
                .put("rssAfterOpenBytes", rssAfterOpen).put("rssAfterReadsBytes", rssAfterReads)
                .put("reads", reads).put("readOpsPerSec", reads / readSeconds)
                .put("filterBytesMapped", memory.filterBytesMapped()).put("indexHeapBytes", memory.indexHeapBytes())
                .put("nativeTableBytes", memory.nativeTableBytes()).put("dataBytesOnDisk", bytesOnDisk(dir))
                .toString();
    }

    /** Heap in use after a full collection: live objects. */
    private static long heapUsed() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** {@code VmRSS} of /proc/self/status in bytes, or -1 where the file does not exist. */
    static long residentSetBytes() {
        try {
            for (String line : Files.readAllLines(SELF_STATUS, StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
            return -1;
        } catch (IOException | SecurityException | NumberFormatException e) {
            return -1;
        }
    }

    private static long bytesOnDisk(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            long sum = 0;
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                sum += Files.size(p);
            }
            return sum;
        }
    }
}
