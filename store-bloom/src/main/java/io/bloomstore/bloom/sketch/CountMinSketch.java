package io.bloomstore.bloom.sketch;

import java.util.Objects;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A Count-Min sketch (Cormode &amp; Muthukrishnan, 2005): l rows of b 32-bit counters. {@code Inc(x)}
 * adds one to one counter per row, {@code Count(x)} is the minimum of x's l counters. Counts are
 * never underestimated; with width b = ⌈e/ε⌉ and depth l = ⌈ln(1/δ)⌉ an estimate exceeds the
 * true count by more than εN (N = total increments) with probability at most δ.
 *
 * <p>Row j's bucket for a key hash h is reduce(h + j·h2) with h2 derived from h (double hashing,
 * as the Bloom kinds probe), so one 64-bit hash serves every row. Counters live in a
 * {@link BitStore}, two per word (row-major), and saturate at 2^32 − 1 instead of wrapping.
 *
 * <p>Thread safety: concurrent {@link #estimate} calls are safe; increments must be confined to
 * one thread with no concurrent reads.
 */
public final class CountMinSketch implements AutoCloseable {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long MAX_COUNTER = 0xFFFF_FFFFL;

    private final int depth;
    private final int width;
    private final BitStore counters;
    private long total;

    private CountMinSketch(int depth, int width, Storage storage) {
        if (depth < 1 || width < 1 || (long) depth * width > (1L << 34)) {
            throw new IllegalArgumentException("Count-Min needs rows ≥ 1 and buckets ≥ 1, got " + depth + " × " + width);
        }
        Objects.requireNonNull(storage, "storage");
        this.depth = depth;
        this.width = width;
        this.counters = storage.allocate(((long) depth * width + 1) / 2);
    }

    /** A sketch whose error exceeds εN with probability at most δ: width ⌈e/ε⌉, depth ⌈ln(1/δ)⌉. */
    public static CountMinSketch forError(double epsilon, double delta, Storage storage) {
        if (!(epsilon > 0 && epsilon < 1) || !(delta > 0 && delta < 1)) {
            throw new IllegalArgumentException("ε and δ must be in (0, 1), got ε=" + epsilon + ", δ=" + delta);
        }
        return new CountMinSketch(depthFor(delta), widthFor(epsilon), storage);
    }

    /** A sketch of {@code rows} × {@code buckets} counters. */
    public static CountMinSketch withShape(int rows, int buckets, Storage storage) {
        return new CountMinSketch(rows, buckets, storage);
    }

    /** ⌈e/ε⌉. */
    public static int widthFor(double epsilon) {
        return (int) Math.ceil(Math.E / epsilon);
    }

    /** ⌈ln(1/δ)⌉. */
    public static int depthFor(double delta) {
        return (int) Math.max(1, Math.ceil(Math.log(1 / delta)));
    }

    /** Inc(x) for a key. */
    public void add(byte[] key) {
        addHash(Filters.hash(key), 1);
    }

    /** Adds {@code amount} (≥ 0) to x's counters, x given by its 64-bit hash. */
    public void addHash(long hash, long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("Count-Min counts only grow; got " + amount);
        }
        long h2 = second(hash);
        long h = hash;
        for (int j = 0; j < depth; j++) {
            long cell = (long) j * width + reduce(h, width);
            set(cell, Math.min(MAX_COUNTER, get(cell) + amount));
            h += h2;
        }
        total += amount;
    }

    /** Count(x) for a key: never below the true count. */
    public long estimate(byte[] key) {
        return estimateHash(Filters.hash(key));
    }

    public long estimateHash(long hash) {
        long h2 = second(hash);
        long h = hash;
        long min = Long.MAX_VALUE;
        for (int j = 0; j < depth; j++) {
            min = Math.min(min, get((long) j * width + reduce(h, width)));
            h += h2;
        }
        return min;
    }

    private long get(long cell) {
        return (counters.getWord(cell >>> 1) >>> ((cell & 1) << 5)) & MAX_COUNTER;
    }

    private void set(long cell, long value) {
        long w = cell >>> 1;
        int shift = (int) (cell & 1) << 5;
        counters.setWord(w, (counters.getWord(w) & ~(MAX_COUNTER << shift)) | (value << shift));
    }

    private static long second(long hash) {
        return (Long.rotateLeft(hash, 32) * GOLDEN) | 1L;
    }

    private static long reduce(long value, int range) {
        return Math.multiplyHigh(value, range) + ((value >> 63) & range);
    }

    /** Rows l. */
    public int depth() {
        return depth;
    }

    /** Buckets per row b. */
    public int width() {
        return width;
    }

    /** N: the sum of all increments. */
    public long total() {
        return total;
    }

    /** Bits of counter storage: l · b · 32. */
    public long bitSize() {
        return (long) depth * width * 32;
    }

    @Override
    public void close() {
        counters.close();
    }
}
