package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * {@link Units} writes numbers and columns exactly as the {@code String.format} patterns it
 * replaces, with {@link Locale#ROOT}: checked on edge values and on 200,000 random ones (seed
 * fixed, printed on failure through the message).
 */
class UnitsTest {
    private static final long SEED = 20261126L;

    @Test
    void fixedIsPercentDotNf() {
        double[] edges = {0, -0.0, 0.5, 1.005, 0.125, 0.135, 2.675, 1e-9, -1e-9, 9.995, 99.995, 1023.95, 1e15 + 0.3,
                1.5e300, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, -2.5, 12345.6789};
        for (double v : edges) {
            for (int d = 0; d <= 4; d++) {
                assertEquals(String.format(Locale.ROOT, "%." + d + "f", v), Units.fixed(v, d), v + " with " + d);
            }
        }
        SplittableRandom rnd = new SplittableRandom(SEED);
        for (int i = 0; i < 100_000; i++) {
            double v = switch (i % 4) {
                case 0 -> rnd.nextDouble() * 100;
                case 1 -> rnd.nextInt(100_000) / 1000.0 + 0.0005;
                case 2 -> Math.scalb(rnd.nextDouble(), rnd.nextInt(-30, 60));
                default -> -rnd.nextDouble() * 1e6;
            };
            int d = i % 5;
            assertEquals(String.format(Locale.ROOT, "%." + d + "f", v), Units.fixed(v, d),
                    "seed " + SEED + ", value " + v + " with " + d + " decimals");
        }
    }

    @Test
    void countIsPercentCommaD() {
        long[] edges = {0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, 12_345_678, Long.MAX_VALUE, Long.MIN_VALUE};
        for (long n : edges) {
            assertEquals(String.format(Locale.ROOT, "%,d", n), Units.count(n));
        }
        SplittableRandom rnd = new SplittableRandom(SEED);
        for (int i = 0; i < 100_000; i++) {
            long n = rnd.nextLong() >> rnd.nextInt(64);
            assertEquals(String.format(Locale.ROOT, "%,d", n), Units.count(n), "seed " + SEED + ", value " + n);
        }
    }

    @Test
    void bytesPercentAndPaddingAsBefore() {
        for (long b : new long[] {0, 1023, 1024, 1536, 1_048_575, 1_048_576, 5L << 30, 7L << 40, 9L << 50}) {
            double v = b;
            int unit = 0;
            String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
            while (v >= 1024 && unit < units.length - 1) {
                v /= 1024;
                unit++;
            }
            String expected = unit == 0 ? b + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[unit]);
            assertEquals(expected, Units.bytes(b));
        }
        for (double r : new double[] {0, 1, 0.0095, 0.0019, 0.5, 0.00000064, 1e-3, 1e-4, Double.NaN}) {
            double p = r * 100;
            String expected = p == 0 || p >= 0.01 || Double.isNaN(p) ? String.format(Locale.ROOT, "%.2f%%", p)
                    : String.format(Locale.ROOT, "%.2g%%", p);
            assertEquals(expected, Units.percent(r), "rate " + r);
        }
        assertEquals(String.format(Locale.ROOT, "%06d", 42), Units.zeroPadded(42, 6));
        assertEquals(String.format(Locale.ROOT, "%06d", 1234567), Units.zeroPadded(1234567, 6));
        assertEquals(String.format(Locale.ROOT, "%-6s %7s %12s", "L0", "12", "a long cell value"),
                Units.row(new int[] {-6, 7, 12}, "L0", "12", "a long cell value"));
        assertEquals(String.format(Locale.ROOT, "%-6s %9s  %s", "total", "10.00", "ribbon"),
                Units.row(new int[] {-6, 9, 0}, "total", "10.00", " ribbon"));
    }
}
