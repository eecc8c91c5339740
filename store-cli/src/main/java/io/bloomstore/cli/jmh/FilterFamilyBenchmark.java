package io.bloomstore.cli.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.bloomstore.bloom.BinaryFuseFilter;
import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.RibbonFilter;
import io.bloomstore.bloom.ScalableBloomFilter;
import io.bloomstore.bloom.storage.Storage;

/**
 * Every filter kind at about 1% false positives over 2^20 keys, off-heap: ns per query of a
 * present and of an absent key, ns per insert (a whole build divided by the keys; for the static
 * binary fuse and ribbon filters that is their construction), and, printed once per trial, the measured bits
 * per key and false-positive rate beside the lower bound log2(1/ε) = 6.64 bits per key.
 *
 * <p>Keys are random 64-bit hashes, so the figures are the filters' cost without hashing the
 * key bytes. Sizing: Bloom, blocked and counting from {@code Filters.create(kind, n, 0.01)};
 * cuckoo with 10-bit fingerprints (bound 8/2^10 = 0.78%); the scalable filter starts at n/8 keys
 * so it runs as a chain of four stages; binary fuse with 8-bit fingerprints (0.39%, the nearest
 * width it offers); ribbon with 7-bit fingerprints (0.78%).
 *
 * <p>Run: {@code java -jar store-cli/target/bloomstore.jar jmh FilterFamilyBenchmark -f 1 -wi 1 -i 2 -w 1s -r 1s}.
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
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED", "-Xmx2g"})
public class FilterFamilyBenchmark {
    static final int KEYS = 1 << 20;
    static final double FPR = 0.01;

    @Param({"bloom", "blocked", "counting", "scalable", "cuckoo", "fuse", "ribbon"})
    public String kind;

    private long[] present;
    private long[] absent;
    private MembershipFilter filter;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom rnd = new SplittableRandom(42);
        present = new long[KEYS];
        absent = new long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            present[i] = rnd.nextLong();
            absent[i] = rnd.nextLong();
        }
        filter = build(FilterKind.byCliName(kind), present);
        long fp = 0;
        for (long h : absent) {
            if (filter.mightContainHash(h)) {
                fp++;
            }
        }
        System.out.printf("%n# %s: %.2f bits/key, measured FPR %.4f%% (bound log2(1/eps) = %.2f bits/key at %.4f%%)%n",
                kind, (double) filter.bitSize() / KEYS, 100.0 * fp / KEYS,
                BloomMath.informationBound((double) fp / KEYS), 100.0 * fp / KEYS);
    }

    static MembershipFilter build(FilterKind kind, long[] keys) {
        switch (kind) {
            case BINARY_FUSE:
                return BinaryFuseFilter.build(keys, keys.length, 8, Storage.NATIVE);
            case RIBBON:
                return RibbonFilter.build(keys, keys.length, 7, Storage.NATIVE);
            case SCALABLE_BLOOM: {
                MembershipFilter f = ScalableBloomFilter.create(keys.length / 8, FPR, Storage.NATIVE);
                insertAll(f, keys);
                return f;
            }
            default: {
                MembershipFilter f = Filters.create(kind, keys.length, FPR, Storage.NATIVE);
                insertAll(f, keys);
                return f;
            }
        }
    }

    private static void insertAll(MembershipFilter f, long[] keys) {
        for (long k : keys) {
            if (!f.addHash(k)) {
                throw new IllegalStateException(f.kind() + " refused a key");
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        filter.close();
    }

    @Benchmark
    public boolean queryPresent() {
        return filter.mightContainHash(present[next++ & (KEYS - 1)]);
    }

    @Benchmark
    public boolean queryAbsent() {
        return filter.mightContainHash(absent[next++ & (KEYS - 1)]);
    }

    /** A whole build per invocation, reported per key. */
    @Benchmark
    @OperationsPerInvocation(KEYS)
    @Warmup(iterations = 1, time = 1)
    @Measurement(iterations = 3, time = 1)
    public long insert() {
        try (MembershipFilter f = build(FilterKind.byCliName(kind), present)) {
            return f.count();
        }
    }
}
