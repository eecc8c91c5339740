package io.bloomstore.cli.jmh;

import java.io.IOException;
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

/**
 * mightContain at 10 bits per key over 2^20 inserted keys, half the queries hits and half
 * misses: standard vs blocked Bloom, on heap, native and mapped storage (mapped through
 * Chronicle Bytes or, as "jdkmapped", through the JDK's fallback mappings), beside Guava's
 * BloomFilter at the same false-positive rate. Time per query includes hashing the 16-byte key.
 * Run: {@code java -jar store-cli/target/bloomstore.jar jmh 'Filter(Add|Query)' -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 *
 * <p>Thread safety: JMH state per benchmark; one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED"})
public class FilterQueryBenchmark {
    @Param({"guava", "bloom-heap", "bloom-native", "bloom-mapped", "bloom-jdkmapped", "blocked-heap", "blocked-native",
        "blocked-mapped", "blocked-jdkmapped"})
    public String filter;

    private byte[][] keys;
    private FilterVariant variant;
    private int next;

    @Setup
    public void setUp() throws IOException {
        keys = FilterBenchmarkKeys.generate();
        variant = FilterVariant.build(filter, keys, FilterBenchmarkKeys.INSERTED, FilterBenchmarkKeys.INSERTED);
    }

    @TearDown
    public void tearDown() throws IOException {
        variant.close();
    }

    @Benchmark
    public boolean mightContain() {
        int i = next;
        next = (i + 1) & (FilterBenchmarkKeys.COUNT - 1);
        return variant.mightContain(keys[i]);
    }
}
