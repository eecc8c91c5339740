package io.bloomstore.bloom;

import java.util.NavigableSet;
import java.util.SplittableRandom;
import java.util.TreeSet;

/** Key values for range-filter tests, and the model that says which ranges hold one. */
final class RangeValues {
    private RangeValues() {
    }

    /** {@code n} ascending values {@code step} apart, each moved up by less than {@code jitter}. */
    static long[] spaced(SplittableRandom rnd, int n, long step, int jitter) {
        long[] v = new long[n];
        long base = rnd.nextLong() >>> 8;
        for (int i = 0; i < n; i++) {
            v[i] = base + step * i + rnd.nextInt(jitter);
        }
        return v;
    }

    static long[] uniform(SplittableRandom rnd, int n) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextLong();
        }
        return v;
    }

    /** The values in unsigned order: the model a filter's answers are checked against. */
    static NavigableSet<Long> unsignedSet(long[] values) {
        NavigableSet<Long> s = new TreeSet<>(Long::compareUnsigned);
        for (long v : values) {
            s.add(v);
        }
        return s;
    }

    /** Whether {@code set} holds a value in [{@code from}, {@code to}], unsigned. */
    static boolean holds(NavigableSet<Long> set, long from, long to) {
        Long c = set.ceiling(from);
        return c != null && Long.compareUnsigned(c, to) <= 0;
    }
}
