package io.bloomstore.cli.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import io.bloomstore.core.Compression;

/**
 * The cost of bounding open table files: random point lookups and short scans (10 entries) on a
 * store of about 2,200 tiny tables (1 KiB each, 20,000 keys of 100-byte values) with a 64 KiB
 * block cache, so nearly every lookup reads a data block through the table-file cache, at
 * {@code maxOpenFiles} -1 (every table open), 4,096 (all fit: the cost of the bookkeeping
 * alone), 1,000 (the default: about half the tables open) and 64 (almost every read reopens its
 * file). The store is built once per trial (with fsyncs: tens of seconds) and deleted after it.
 * The descriptors the process holds after each trial are printed.
 * Run: {@code java -jar store-cli/target/bloomstore.jar jmh OpenFilesBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s}.
 *
 * <p>Thread safety: JMH state per benchmark; one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED"})
public class OpenFilesBenchmark {
    private static final int KEYS = 20_000;

    @Param({"-1", "4096", "1000", "64"})
    public int maxOpenFiles;

    private Path dir;
    private Store store;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("bloomstore-jmh-openfiles");
        StoreOptions options = StoreOptions.builder().maxOpenFiles(maxOpenFiles).autoCompaction(false)
                .targetFileBytes(1024).blockSize(256).compression(Compression.NONE).blockCacheBytes(64 << 10)
                .build();
        try (Store s = Store.open(dir, options)) {
            for (int i = 0; i < KEYS; i++) {
                s.put(key(i), new byte[100]);
            }
            s.compact();
        }
        store = Store.open(dir, options);
    }

    @TearDown
    public void tearDown() throws IOException {
        StoreStats stats = store.stats();
        long sst = descriptors(".sst");
        long all = descriptors("");
        System.out.printf("%nmaxOpenFiles %d: %d tables, %d .sst descriptors, %d descriptors in all%n",
                maxOpenFiles, stats.totalFiles(), sst, all);
        store.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public byte[] get() throws IOException {
        return store.get(key(random.nextInt(KEYS)));
    }

    @Benchmark
    public int scan10() {
        int n = 0;
        try (StoreIterator it = store.iterator(key(random.nextInt(KEYS)), null)) {
            for (Iterator<KeyValue> i = it; i.hasNext() && n < 10; n++) {
                i.next();
            }
        }
        return n;
    }

    private static byte[] key(int i) {
        return String.format("key%012d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /** Descriptors of this process open on paths ending with {@code suffix}, -1 without /proc. */
    private static long descriptors(String suffix) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        long n = 0;
        try (Stream<Path> list = Files.list(fds)) {
            for (Path fd : (Iterable<Path>) list::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().endsWith(suffix)) {
                        n++;
                    }
                } catch (IOException e) {
                    // Closed while listed (the listing's own descriptor among them).
                }
            }
        }
        return n;
    }
}
