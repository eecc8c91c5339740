package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every peer engine of the benchmark must do, through {@link BenchEngine} as the harness
 * drives it, against a model ({@link TreeMap} in unsigned byte order): puts from one reused pair
 * of buffers, lookups of present and absent keys, overwrites, seeks and bounded scans, a reopen,
 * and lookups beside a writer. Keys have bytes above 0x7f in every position, so an engine ordering
 * bytes as signed fails the seeks. Then a small bench run of the engine: every loaded key found,
 * no absent one, every seek finding entries, and no counter claimed ({@link EngineCounters#notKept()}).
 * Each subclass names one engine; the seed is printed.
 */
abstract class PeerEngineContract {
    private static final int KEYS = 3_000;
    private static final int KEY_SIZE = 16;
    private static final int VALUE_SIZE = 100;

    @TempDir
    Path dir;

    /** The engine's name in {@link EngineFactory#standard()}. */
    abstract String engineName();

    private final long seed = System.nanoTime();

    private BenchEngine open(Path where) throws Exception {
        BenchEngine engine = EngineFactory.standard().create(engineName());
        engine.open(where, BenchRunnerTest.smallConfig());
        return engine;
    }

    private static final java.util.Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

    /**
     * Loads {@link #KEYS} random keys: half through one reused key and value buffer, half in
     * batches of 100 through reused batch arrays ({@link BenchEngine#putBatch}); returns the model.
     */
    private NavigableMap<byte[], byte[]> load(BenchEngine engine, SplittableRandom random) throws Exception {
        NavigableMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        byte[] key = new byte[KEY_SIZE];
        byte[] value = new byte[VALUE_SIZE];
        while (model.size() < KEYS / 2) {
            random.nextBytes(key);
            random.nextBytes(value);
            engine.put(key, value);
            model.put(key.clone(), value.clone());
        }
        byte[][] keys = new byte[100][KEY_SIZE];
        byte[][] values = new byte[100][VALUE_SIZE];
        while (model.size() < KEYS) {
            int count = 1 + random.nextInt(keys.length);
            for (int i = 0; i < count; i++) {
                random.nextBytes(keys[i]);
                random.nextBytes(values[i]);
                model.put(keys[i].clone(), values[i].clone());
            }
            engine.putBatch(keys, values, count);
        }
        return model;
    }

    @Test
    void putGetMissingSeekScanAndReopen() throws Exception {
        System.out.println(getClass().getSimpleName() + " seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        Path store = Files.createDirectories(dir.resolve("store"));
        NavigableMap<byte[], byte[]> model;
        try (BenchEngine engine = open(store)) {
            model = load(engine, random);
            checkAll(engine, model, random);
            byte[] some = model.firstKey();
            byte[] changed = new byte[VALUE_SIZE / 2];
            random.nextBytes(changed);
            engine.put(some, changed);
            model.put(some, changed);
            byte[] buffer = new byte[VALUE_SIZE];
            assertEquals(changed.length, engine.get(some, buffer), "an overwrite's length");
            assertArrayEquals(changed, Arrays.copyOf(buffer, changed.length), "an overwrite's value");
            engine.prepareForReads();
            assertFalse(engine.counters().kept(), "a peer claims no table or filter counters");
        }
        try (BenchEngine reopened = open(store)) {
            checkAll(reopened, model, random);
        }
    }

    private void checkAll(BenchEngine engine, NavigableMap<byte[], byte[]> model, SplittableRandom random)
            throws Exception {
        byte[] value = new byte[VALUE_SIZE];
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            Arrays.fill(value, (byte) 0);
            assertEquals(e.getValue().length, engine.get(e.getKey(), value), "length of a present key");
            assertArrayEquals(e.getValue(), Arrays.copyOf(value, e.getValue().length), "value of a present key");
        }
        byte[] shortBuffer = new byte[10];
        Map.Entry<byte[], byte[]> first = model.firstEntry();
        assertEquals(first.getValue().length, engine.get(first.getKey(), shortBuffer), "full length, short buffer");
        assertArrayEquals(Arrays.copyOf(first.getValue(), 10), shortBuffer, "as much as fits");

        byte[] absent = new byte[KEY_SIZE];
        for (int i = 0; i < 500; i++) {
            random.nextBytes(absent);
            if (!model.containsKey(absent)) {
                assertEquals(BenchEngine.NOT_FOUND, engine.get(absent, value), "an absent key");
            }
        }
        assertEquals(BenchEngine.NOT_FOUND, engine.get(new byte[] {1, 2, 3}, value), "a shorter absent key");

        byte[] keyBuffer = new byte[KEY_SIZE];
        byte[] start = new byte[KEY_SIZE];
        for (int i = 0; i < 300; i++) {
            random.nextBytes(start);
            List<byte[]> next = model.tailMap(start, true).keySet().stream().limit(10).toList();
            int read = engine.seekScan(start, 10, keyBuffer, value);
            assertEquals(next.size(), read, "entries after a seek");
            if (read > 0) {
                byte[] last = next.get(read - 1);
                assertArrayEquals(last, keyBuffer, "the last key a seek read, in unsigned order");
                assertArrayEquals(model.get(last), Arrays.copyOf(value, model.get(last).length), "its value");
            }
            assertEquals(next.isEmpty() ? 0 : 1, engine.seekScan(start, 1, keyBuffer, value));
            if (!next.isEmpty()) {
                assertArrayEquals(next.get(0), keyBuffer, "the first key at or after the seek key");
            }
        }
        byte[] last = model.lastKey();
        assertEquals(1, engine.seekScan(last, 5, keyBuffer, value), "a seek to the last key reads it alone");
        byte[] past = new byte[KEY_SIZE + 1];
        Arrays.fill(past, (byte) 0xff);
        assertEquals(0, engine.seekScan(past, 5, keyBuffer, value), "a seek past every key reads nothing");

        byte[] from = new byte[] {(byte) 0x80};
        byte[] to = new byte[] {(byte) 0x90};
        NavigableMap<byte[], byte[]> range = model.subMap(from, true, to, false);
        assertEquals(range.size(), engine.rangeScan(from, to, keyBuffer, value), "a range's entries");
        assertArrayEquals(range.lastKey(), keyBuffer, "a range's last key");
        byte[] prefix = new byte[] {(byte) 0xc3};
        NavigableMap<byte[], byte[]> prefixed = model.subMap(prefix, true, new byte[] {(byte) 0xc4}, false);
        assertEquals(prefixed.size(), engine.prefixScan(prefix, keyBuffer, value), "a prefix's entries");
    }

    @Test
    void lookupsBesideAWriter() throws Exception {
        System.out.println(getClass().getSimpleName() + " seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (BenchEngine engine = open(Files.createDirectories(dir.resolve("concurrent")))) {
            NavigableMap<byte[], byte[]> model = load(engine, random);
            List<byte[]> keys = List.copyOf(model.keySet());
            Future<Void> writer = pool.submit(() -> {
                byte[] key = new byte[KEY_SIZE];
                byte[] value = new byte[VALUE_SIZE];
                SplittableRandom r = new SplittableRandom(seed + 1);
                for (int i = 0; i < 2_000; i++) {
                    r.nextBytes(key);
                    r.nextBytes(value);
                    engine.put(key, value);
                }
                return null;
            });
            List<Future<Void>> readers = new ArrayList<>();
            for (int thread = 0; thread < 2; thread++) {
                long readerSeed = seed + 2 + thread;
                readers.add(pool.submit(() -> {
                    byte[] value = new byte[VALUE_SIZE];
                    byte[] keyBuffer = new byte[KEY_SIZE];
                    SplittableRandom r = new SplittableRandom(readerSeed);
                    for (int i = 0; i < 5_000; i++) {
                        byte[] key = keys.get(r.nextInt(keys.size()));
                        assertEquals(VALUE_SIZE, engine.get(key, value));
                        assertArrayEquals(model.get(key), value);
                        assertTrue(engine.seekScan(key, 3, keyBuffer, value) >= 1);
                    }
                    return null;
                }));
            }
            writer.get(2, TimeUnit.MINUTES);
            for (Future<Void> f : readers) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSmallBenchRun() throws Exception {
        BenchConfig config = BenchRunnerTest.smallConfig().withKeys(5_000).withReads(2_000);
        System.out.println(getClass().getSimpleName() + " bench seed " + config.seed());
        BenchResults run = new BenchRunner(config, EngineFactory.standard(), null).run(List.of(engineName()),
                List.of(Workload.FILLSEQ, Workload.FILLRANDOM, Workload.READRANDOM, Workload.READMISSING,
                        Workload.SEEKRANDOM, Workload.UPDATERANDOM, Workload.FILLBATCH), dir, 1);
        Headline h = new Headline(run.results());
        assertEquals(config.reads(), h.find(engineName(), Workload.READRANDOM).found(), "every loaded key found");
        assertEquals(0, h.find(engineName(), Workload.READMISSING).found(), "no absent key found");
        assertEquals(config.reads(), h.find(engineName(), Workload.SEEKRANDOM).found(), "every seek finds entries");
        assertEquals(config.reads(), h.find(engineName(), Workload.UPDATERANDOM).found(), "every update finds its key");
        assertEquals(config.keys(), h.find(engineName(), Workload.FILLRANDOM).ops());
        assertEquals(config.keys(), h.find(engineName(), Workload.FILLBATCH).ops());
        LoadCost load = run.filters().get(0);
        assertTrue(load.bytesOnDisk() > 0, "bytes on disk after the fill: " + load.bytesOnDisk());
    }
}
