package io.bloomstore.cli.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

import io.bloomstore.bloom.BloomFilter;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.bloom.storage.Storage;

/**
 * Opening (header checked, payload mapped, not read), querying once and closing a large standard
 * Bloom filter file, through each {@link OffHeapBackend}: Chronicle Bytes (the JVM has the flags)
 * and the JDK's fallback mappings. Run with JMH's allocation profiler, {@code -prof gc}: its
 * {@code gc.alloc.rate.norm} is the heap bytes one open costs, which must not grow with the
 * filter's size. Run:
 * {@code java -jar store-cli/target/bloomstore.jar jmh FilterOpenBenchmark -prof gc -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 *
 * <p>Thread safety: JMH state per benchmark; one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED"})
public class FilterOpenBenchmark {
    @Param({"chronicle", "jdk"})
    public String backend;

    /** Filter size in MiB: the heap an open costs must be the same for both sizes. */
    @Param({"16", "512"})
    public int mebibytes;

    private Path file;
    private OffHeapBackend memory;
    private long probe;

    @Setup
    public void setUp() throws IOException {
        memory = OffHeapBackend.valueOf(backend.toUpperCase(java.util.Locale.ROOT));
        file = Files.createTempFile("bloomstore-jmh-open-", ".bsf");
        probe = Filters.hash(new byte[] {4, 2});
        try (BloomFilter f = BloomFilter.create((long) mebibytes << 23, 7, Storage.NATIVE)) {
            f.addHash(probe);
            FilterFile.write(f, file);
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    @Benchmark
    public boolean openQueryClose() throws IOException {
        try (MembershipFilter f = FilterFile.open(file, false, memory)) {
            return f.mightContainHash(probe);
        }
    }
}
