package io.bloomstore.cli.bench;

/**
 * A log-bucketed latency histogram in the manner of HdrHistogram, reduced to what the
 * benchmark needs: values in nanoseconds, 32 sub-buckets per power of two (a relative error
 * of at most 1/32 ≈ 3%), recording without allocation, merging, and percentiles.
 *
 * <p>Thread safety: not thread-safe; each worker thread records into its own histogram and
 * the harness merges them after the threads have finished.
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 5;
    private static final int SUB = 1 << SUB_BITS;
    /** Values below {@code SUB} get a bucket each; above, 32 buckets per power of two up to 2^63. */
    private static final int BUCKETS = (64 - SUB_BITS) * SUB;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        total++;
        if (v > max) {
            max = v;
        }
    }

    public void merge(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }

    public long count() {
        return total;
    }

    /**
     * The value at quantile {@code q} (0 < q ≤ 1): the upper end of the bucket holding the
     * ⌈q·count⌉-th smallest value, capped at the largest recorded value; 0 when empty.
     */
    public long valueAt(double q) {
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("quantile must be in (0, 1]: " + q);
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperBound(i), max);
            }
        }
        return max;
    }

    /** {@link #valueAt} in microseconds. */
    public double micros(double q) {
        return valueAt(q) / 1000.0;
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v);
        int shift = exp - SUB_BITS;
        int sub = (int) ((v >>> shift) & (SUB - 1));
        return (shift + 1) * SUB + sub;
    }

    static long upperBound(int index) {
        if (index < SUB) {
            return index;
        }
        int shift = index / SUB - 1;
        long lower = (long) (SUB + index % SUB) << shift;
        return lower + (1L << shift) - 1;
    }
}
