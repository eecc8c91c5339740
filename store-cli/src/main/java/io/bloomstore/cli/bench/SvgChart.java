package io.bloomstore.cli.bench;

import io.bloomstore.bloom.Filters;
import java.util.List;
import java.util.Locale;

/**
 * Inline SVG charts for the HTML report, written by hand so the report needs no script and
 * fetches nothing: grouped bar charts, and the false-positive-rate chart (theory curves on a
 * log scale with measured points). Output is well-formed XML in the SVG namespace.
 *
 * <p>Thread safety: stateless.
 */
final class SvgChart {
    static final String[] PALETTE = {"#1b6ca8", "#e07b39", "#3a9d5d", "#b5446e", "#7c6bb0", "#8c8c8c", "#c9a227",
        "#2f4f4f", "#17a2b8", "#8b5a2b"};
    private static final int WIDTH = 760;
    private static final int HEIGHT = 320;
    private static final int LEFT = 80;
    private static final int RIGHT = 20;
    private static final int TOP = 50;
    private static final int BOTTOM = 50;

    private SvgChart() {
    }

    /** Measured point of the FPR chart, drawn in {@code PALETTE[colour]} like its engine's bars. */
    record Point(String label, double bitsPerKey, double fpr, int colour) {
    }

    /**
     * Grouped bars: one group per entry of {@code groups}, one bar per series, height
     * {@code values[series][group]} on a linear axis from 0; NaN leaves a gap.
     */
    static String bars(String title, String yLabel, List<String> groups, List<String> series, double[][] values) {
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        double top = niceCeiling(max);
        StringBuilder s = open(title);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        for (int t = 0; t <= 4; t++) {
            double v = top * t / 4;
            double y = TOP + plotH - plotH * t / 4.0;
            line(s, LEFT, y, WIDTH - RIGHT, y, "#dddddd");
            text(s, LEFT - 6, y + 4, "end", 11, format(v));
        }
        double groupW = (double) plotW / Math.max(1, groups.size());
        double barW = groupW * 0.8 / Math.max(1, series.size());
        for (int g = 0; g < groups.size(); g++) {
            double gx = LEFT + g * groupW + groupW * 0.1;
            text(s, gx + groupW * 0.4, TOP + plotH + 18, "middle", 12, groups.get(g));
            for (int i = 0; i < series.size(); i++) {
                double v = values[i][g];
                if (Double.isNaN(v)) {
                    continue;
                }
                double h = top == 0 ? 0 : plotH * v / top;
                double x = gx + i * barW;
                s.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>%n",
                        x, TOP + plotH - h, barW - 2, h, PALETTE[i % PALETTE.length],
                        HtmlReport.escape(series.get(i) + " " + groups.get(g) + ": " + format(v))));
                text(s, x + (barW - 2) / 2, TOP + plotH - h - 3, "middle", 9, format(v));
            }
        }
        axes(s, yLabel);
        legend(s, series, PALETTE);
        return s.append("</svg>\n").toString();
    }

    /** FPR against bits per key, log scale: standard and blocked Bloom, binary fuse and ribbon theory, and measured points. */
    static String fprCurve(String title, List<Point> points) {
        double minBits = 1;
        double maxBits = 20;
        double minExp = -6;
        StringBuilder s = open(title);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        for (int e = 0; e >= minExp; e--) {
            double y = TOP + plotH * (-e / -minExp);
            line(s, LEFT, y, WIDTH - RIGHT, y, "#dddddd");
            text(s, LEFT - 6, y + 4, "end", 11, "1e" + e);
        }
        for (int b = 2; b <= 20; b += 2) {
            double x = LEFT + plotW * (b - minBits) / (maxBits - minBits);
            text(s, x, TOP + plotH + 18, "middle", 11, Integer.toString(b));
        }
        String[] curveColours = {"#444444", "#999999", "#6a8caf", "#b5651d"};
        String[] curveNames = {"Bloom theory (optimal k)", "blocked Bloom theory (512-bit blocks)",
            "binary fuse theory", "ribbon theory"};
        for (int c = 0; c < curveNames.length; c++) {
            StringBuilder path = new StringBuilder();
            for (double b = minBits; b <= maxBits + 1e-9; b += 0.25) {
                double fpr = switch (c) {
                    case 0 -> BenchConfig.bloomFpr(b);
                    case 1 -> BenchConfig.blockedBloomFpr(b);
                    case 2 -> Filters.fuseFpr(b);
                    default -> Filters.ribbonFpr(b);
                };
                double x = LEFT + plotW * (b - minBits) / (maxBits - minBits);
                double y = TOP + plotH * Math.min(1, Math.log10(fpr) / minExp);
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
            }
            s.append(String.format(Locale.ROOT,
                    "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n", path, curveColours[c],
                    c == 1 ? " stroke-dasharray=\"6 4\"" : c == 2 ? " stroke-dasharray=\"2 3\"" : ""));
        }
        for (int i = 0; i < points.size(); i++) {
            Point p = points.get(i);
            double x = LEFT + plotW * (p.bitsPerKey() - minBits) / (maxBits - minBits);
            double y = TOP + plotH * Math.min(1, Math.log10(Math.max(p.fpr(), 1e-6)) / minExp);
            s.append(String.format(Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"><title>%s</title></circle>%n", x, y,
                    PALETTE[p.colour() % PALETTE.length], HtmlReport.escape(p.label() + ": " + format(p.fpr()))));
            text(s, x + 8, y - 6 - 12 * i, "start", 11, p.label() + " " + format(p.fpr()));
        }
        axes(s, "false-positive rate");
        text(s, LEFT + plotW / 2.0, HEIGHT - 8, "middle", 12, "bits per key");
        legend(s, List.of(curveNames), curveColours);
        return s.append("</svg>\n").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" role=\"img\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        s.append("<title>").append(HtmlReport.escape(title)).append("</title>\n");
        text(s, LEFT, 18, "start", 14, title);
        return s;
    }

    private static void axes(StringBuilder s, String yLabel) {
        line(s, LEFT, TOP, LEFT, HEIGHT - BOTTOM, "#333333");
        line(s, LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM, "#333333");
        s.append(String.format(Locale.ROOT,
                "<text x=\"16\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">%s</text>%n",
                (TOP + HEIGHT - BOTTOM) / 2, (TOP + HEIGHT - BOTTOM) / 2, HtmlReport.escape(yLabel)));
    }

    /** A legend in one row at the top right, above the plot, so it never covers a bar. */
    private static void legend(StringBuilder s, List<String> names, String[] colours) {
        double width = 0;
        for (String n : names) {
            width += 22 + 6.5 * n.length();
        }
        double x = Math.max(LEFT, WIDTH - RIGHT - width);
        for (int i = 0; i < names.size(); i++) {
            s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"27\" width=\"10\" height=\"10\" fill=\"%s\"/>%n",
                    x, colours[i % colours.length]));
            text(s, x + 14, 36, "start", 11, names.get(i));
            x += 22 + 6.5 * names.get(i).length();
        }
    }

    private static void line(StringBuilder s, double x1, double y1, double x2, double y2, String colour) {
        s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n",
                x1, y1, x2, y2, colour));
    }

    private static void text(StringBuilder s, double x, double y, String anchor, int size, String content) {
        s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">%s</text>%n",
                x, y, size, anchor, HtmlReport.escape(content)));
    }

    /** Short human form: 3 significant digits, thousands as k/M. */
    static String format(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (a >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        if (a >= 100 || a == 0) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /** The smallest of 1, 2, 2.5, 5 × 10^n at or above {@code v}. */
    static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }
}
