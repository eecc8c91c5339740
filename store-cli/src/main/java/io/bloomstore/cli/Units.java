package io.bloomstore.cli;

import java.util.Locale;

/**
 * Number formatting shared by the commands' human-readable output (JSON output prints raw
 * numbers instead).
 *
 * <p>Thread safety: stateless.
 */
public final class Units {
    private static final String[] BYTE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Units() {
    }

    /** A byte count as "1.2 MiB". */
    public static String bytes(long bytes) {
        double v = bytes;
        int unit = 0;
        while (v >= 1024 && unit < BYTE_UNITS.length - 1) {
            v /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, BYTE_UNITS[unit]);
    }

    /** A rate as a percentage with enough digits to see a one-in-a-million rate: "1.00%", "0.000064%". */
    public static String percent(double rate) {
        double p = rate * 100;
        if (p == 0 || p >= 0.01) {
            return String.format(Locale.ROOT, "%.2f%%", p);
        }
        return String.format(Locale.ROOT, "%.2g%%", p);
    }

    /** A count with thousands separators: "1,000,000". */
    public static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
