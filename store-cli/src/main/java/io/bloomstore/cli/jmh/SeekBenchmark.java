package io.bloomstore.cli.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;

/**
 * A seek to a random loaded key followed by {@value #SCAN} entries (the CLI bench's
 * {@code seekrandom}) on a store of 200,000 keys (16 bytes, 1 KiB incompressible values)
 * compacted into one level, loaded in key order ({@code sequential}: flushes cover disjoint
 * ranges and move down whole) or in random order ({@code random}: every compaction merges
 * interleaved inputs). The gap between the two is what compaction's block layout costs a scan:
 * each data block a seek touches outside the 8 MiB block cache is a read call. The tear-down
 * prints data blocks read per seek. The store is built once per trial and deleted after it.
 * Run: {@code java -jar store-cli/target/bloomstore.jar jmh SeekBenchmark -f 2 -wi 3 -i 5 -w 1s -r 1s}.
 *
 * <p>Thread safety: JMH state per benchmark; one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SeekBenchmark {
    private static final int KEYS = 200_000;
    private static final int VALUE_BYTES = 1024;
    private static final int SCAN = 10;

    @Param({"random", "sequential"})
    public String fill;

    private Path dir;
    private Store store;
    private long seeks;
    private long blocksBefore;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("bloomstore-jmh-seek");
        StoreOptions options = StoreOptions.builder().blockCacheBytes(8L << 20).build();
        int[] order = new int[KEYS];
        for (int i = 0; i < KEYS; i++) {
            order[i] = i;
        }
        SplittableRandom shuffle = new SplittableRandom(7);
        if (fill.equals("random")) {
            for (int i = KEYS - 1; i > 0; i--) {
                int j = shuffle.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        } else if (!fill.equals("sequential")) {
            throw new IllegalArgumentException("fill must be random or sequential: " + fill);
        }
        byte[] value = new byte[VALUE_BYTES];
        try (Store s = Store.open(dir, options)) {
            for (int i : order) {
                shuffle.nextBytes(value);
                s.put(key(i), value);
            }
            s.compact();
        }
        store = Store.open(dir, options);
        StoreStats stats = store.stats();
        System.out.printf("%n%s: %d tables in %d level(s)%n", fill, stats.totalFiles(),
                stats.levels().stream().filter(l -> l.files() > 0).count());
        blocksBefore = stats.dataBlockReads();
    }

    @TearDown
    public void tearDown() throws IOException {
        System.out.printf("%n%s: %.2f data blocks read per seek over %d seeks%n", fill,
                (store.stats().dataBlockReads() - blocksBefore) / (double) seeks, seeks);
        store.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public long seekAndScan() {
        seeks++;
        long bytes = 0;
        int n = 0;
        try (StoreIterator it = store.iterator(key(random.nextInt(KEYS)), null)) {
            while (n < SCAN && it.hasNext()) {
                KeyValue kv = it.next();
                bytes += kv.value().length;
                n++;
            }
        }
        return bytes;
    }

    /** The 16-byte key of {@code n}: its 8 big-endian bytes, then 8 fixed bytes. */
    private static byte[] key(long n) {
        byte[] k = new byte[16];
        for (int b = 0; b < 8; b++) {
            k[b] = (byte) (n >>> (56 - 8 * b));
        }
        for (int b = 8; b < 16; b++) {
            k[b] = 'k';
        }
        return k;
    }
}
