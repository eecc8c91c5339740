package io.bloomstore.cli.jmh;

import java.util.Arrays;
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

import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.bloom.RosettaFilter;
import io.bloomstore.bloom.storage.Storage;

/**
 * Time of one empty-range query, Grafite-style {@link RangeFilter} against {@link RosettaFilter},
 * both off-heap at the same bits per key over 100,000 values, ranges of up to 2^16 values, as
 * {@code bloomstore experiment range-filters} measures their false-positive rates. Queries: 4,096
 * empty ranges of {@code length} values, "uniform" (a random start over uniform values) or
 * "correlated" (starting just past a value of clustered ones, 8,192 apart), seed 20261124, asked in
 * turn. Run: {@code java -jar store-cli/target/bloomstore.jar jmh RangeFilterBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s}.
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
public class RangeFilterBenchmark {
    private static final int VALUES = 100_000;
    private static final int QUERIES = 4096;

    @Param({"grafite", "rosetta"})
    public String filter;

    @Param({"16"})
    public int bits;

    @Param({"1", "16", "256", "4096"})
    public long length;

    @Param({"uniform", "correlated"})
    public String queries;

    private RangeFilter grafite;
    private RosettaFilter rosetta;
    private long[] from;
    private int next;

    @Setup
    public void setUp() {
        SplittableRandom rnd = new SplittableRandom(20261124L);
        boolean correlated = queries.equals("correlated");
        long[] values = new long[VALUES];
        long base = rnd.nextLong() >>> 8;
        for (int i = 0; i < VALUES; i++) {
            values[i] = correlated ? base + 8192L * i + rnd.nextInt(2048) : rnd.nextLong();
        }
        if (filter.equals("grafite")) {
            grafite = RangeFilter.build(values, VALUES, bits, 16, 20261124L, Storage.NATIVE);
        } else {
            rosetta = RosettaFilter.build(values, VALUES, bits, 16, 20261124L, Storage.NATIVE);
        }
        long[] sorted = values.clone();
        for (int i = 0; i < VALUES; i++) {
            sorted[i] ^= Long.MIN_VALUE;
        }
        Arrays.sort(sorted);
        from = new long[QUERIES];
        for (int q = 0; q < QUERIES; ) {
            long a = correlated ? values[rnd.nextInt(VALUES)] + 1 : rnd.nextLong();
            int i = Arrays.binarySearch(sorted, a ^ Long.MIN_VALUE);
            int succ = i >= 0 ? i : -i - 1;
            boolean empty = succ == VALUES || Long.compareUnsigned(sorted[succ] ^ Long.MIN_VALUE, a + length - 1) > 0;
            if (empty && Long.compareUnsigned(a + length - 1, a) >= 0) {
                from[q++] = a;
            }
        }
    }

    @TearDown
    public void tearDown() {
        if (grafite != null) {
            grafite.close();
        }
        if (rosetta != null) {
            rosetta.close();
        }
    }

    @Benchmark
    public boolean emptyRange() {
        int i = next;
        next = (i + 1) & (QUERIES - 1);
        long a = from[i];
        return grafite != null ? grafite.mightContainRange(a, a + length - 1)
                : rosetta.mightContainRange(a, a + length - 1);
    }
}
