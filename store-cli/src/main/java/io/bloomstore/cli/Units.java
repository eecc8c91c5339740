package io.bloomstore.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * Number formatting shared by the commands' human-readable output (JSON output prints raw
 * numbers instead), and the padded columns of their tables.
 *
 * <p>Written out rather than through {@code String.format}: {@code java.util.Formatter} compiles a
 * regular expression when it first loads and parses every pattern with it, which cost a one-shot
 * {@code stats} (about a hundred formatted cells) some 70 ms of processor time. The output is the
 * same as the patterns these methods name, with {@link Locale#ROOT} (UnitsTest compares them).
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
        return unit == 0 ? bytes + " B" : fixed(v, 1) + " " + BYTE_UNITS[unit];
    }

    /** A rate as a percentage with enough digits to see a one-in-a-million rate: "1.00%", "0.000064%". */
    public static String percent(double rate) {
        double p = rate * 100;
        if (p == 0 || p >= 0.01 || !Double.isFinite(p)) {
            return fixed(p, 2) + "%";
        }
        // Rare (below one in ten thousand): the formatter's %g is not worth writing out.
        return String.format(Locale.ROOT, "%.2g%%", p);
    }

    /** A count with thousands separators, as {@code %,d}: "1,000,000". */
    public static String count(long n) {
        String digits = Long.toString(n);
        int start = n < 0 ? 1 : 0;
        int length = digits.length() - start;
        if (length <= 3) {
            return digits;
        }
        StringBuilder b = new StringBuilder(digits.length() + length / 3);
        b.append(digits, 0, start);
        int first = length % 3 == 0 ? 3 : length % 3;
        b.append(digits, start, start + first);
        for (int i = start + first; i < digits.length(); i += 3) {
            b.append(',').append(digits, i, i + 3);
        }
        return b.toString();
    }

    /**
     * {@code v} with {@code decimals} digits after the point, as {@code %.Nf}: half up from the
     * shortest decimal that reads back as {@code v}; "NaN" and "Infinity" as the formatter writes them.
     */
    public static String fixed(double v, int decimals) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "Infinity" : "-Infinity";
        }
        String s = new BigDecimal(Double.toString(Math.abs(v))).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
        return (v < 0 || (v == 0 && 1 / v < 0)) ? "-" + s : s;
    }

    /** {@code n} zero-padded to {@code width} digits, as {@code %0Nd} of a non-negative number. */
    public static String zeroPadded(long n, int width) {
        String s = Long.toString(n);
        return s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }

    /**
     * One line of a table: each cell padded to its width as {@code %Ns} (right-aligned, width > 0) or
     * {@code %-Ns} (left-aligned, width < 0; 0: as it is), one space between cells.
     */
    public static String row(int[] widths, String... cells) {
        StringBuilder b = new StringBuilder(96);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append(' ');
            }
            String c = cells[i];
            int w = i < widths.length ? widths[i] : 0;
            int pad = Math.abs(w) - c.length();
            if (w > 0) {
                b.append(" ".repeat(Math.max(0, pad))).append(c);
            } else {
                b.append(c).append(" ".repeat(Math.max(0, pad)));
            }
        }
        return b.toString();
    }
}
