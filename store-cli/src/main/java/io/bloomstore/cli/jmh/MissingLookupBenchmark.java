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

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;

/**
 * The cost of a point lookup for a key the store does not hold — the path the filters exist
 * for — on a store of 500,000 keys (16 bytes, 100-byte values) with default options, in two
 * shapes: {@code compacted} (one table's range holds each key, so a miss is one filter probe)
 * and {@code level0x4} (four flushed tables each spanning the whole key range, compaction off, so
 * a miss probes four filters). Missing keys fall between loaded ones, so every consulted
 * table's key range holds them and only its filter answers. {@code getPresent} is the same
 * lookup for loaded keys, for scale. The store is built once per trial and deleted after it.
 * Run: {@code java -jar store-cli/target/bloomstore.jar jmh MissingLookupBenchmark -f 3 -wi 3 -i 5 -w 1s -r 1s}.
 *
 * <p>Thread safety: JMH state per benchmark; one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MissingLookupBenchmark {
    private static final int KEYS = 500_000;
    private static final int OVERLAPPING = 4;

    @Param({"compacted", "level0x4"})
    public String shape;

    /** The tables' filter kind ({@code FilterKind} CLI name): ribbon (the store's default), fuse, blocked or bloom. */
    @Param({"ribbon"})
    public String filter;

    private Path dir;
    private Store store;
    private final SplittableRandom random = new SplittableRandom(42);
    private final byte[] key = new byte[16];

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("bloomstore-jmh-missing");
        boolean overlapping = shape.equals("level0x4");
        StoreOptions options = StoreOptions.builder().autoCompaction(!overlapping)
                .filterKind(FilterKind.byCliName(filter)).build();
        byte[] value = new byte[100];
        try (Store s = Store.open(dir, options)) {
            if (overlapping) {
                // Table t holds keys t, t + 4, t + 8, ...: each spans the whole key range.
                for (int t = 0; t < OVERLAPPING; t++) {
                    for (int i = t; i < KEYS; i += OVERLAPPING) {
                        s.put(key(present(i), new byte[16]), value);
                    }
                    s.flush();
                }
            } else {
                for (int i = 0; i < KEYS; i++) {
                    s.put(key(present(i), new byte[16]), value);
                }
                s.compact();
            }
        }
        store = Store.open(dir, options);
        StoreStats stats = store.stats();
        System.out.printf("%n%s: %d tables%n", shape, stats.totalFiles());
    }

    @TearDown
    public void tearDown() throws IOException {
        StoreStats st = store.stats();
        System.out.printf("%n%s: %d gets, %d tables consulted, %d filter negatives, %d positives (%d true), %d data blocks read%n",
                shape, st.gets(), st.tableLookups(), st.filterNegatives(), st.filterPositives(), st.filterTruePositives(),
                st.dataBlockReads());
        store.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public byte[] getMissing() throws IOException {
        return store.get(key(present(random.nextInt(KEYS)) + 1, key));
    }

    @Benchmark
    public byte[] getPresent() throws IOException {
        return store.get(key(present(random.nextInt(KEYS)), key));
    }

    /** Loaded keys are the even numbers; the odd ones between them are missing. */
    private static long present(int i) {
        return 2L * i;
    }

    /** The 16-byte key of {@code n}: its 8 big-endian bytes, then 8 fixed bytes. */
    private static byte[] key(long n, byte[] into) {
        for (int b = 0; b < 8; b++) {
            into[b] = (byte) (n >>> (56 - 8 * b));
        }
        for (int b = 8; b < 16; b++) {
            into[b] = 'k';
        }
        return into;
    }
}
