package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Writes a run as one self-contained HTML file ({@code --report FILE.html}): inline CSS,
 * charts as inline SVG, no scripts and no network fetches. The markup is XHTML, so the file
 * also parses as XML. Sections, each {@code <section class="chart">} holding one chart:
 * throughput, disk reads per lookup, measured FPR against theory, disk accesses saved (medians
 * over rounds when the run was repeated); then one chart per workload with every engine and the
 * ratios bloomstore / each engine; then the summary over rounds, the cold-start and
 * reopen tables when those probes ran, the full results table and the definitions of its columns.
 *
 * <p>Thread safety: stateless.
 */
public final class HtmlReport {
    private static final String CSS = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}"
            + "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}"
            + "th{background:#f0f0f0}td.l,th.l{text-align:left}section{margin:2em 0}.note{color:#555;font-size:13px}";

    private HtmlReport() {
    }

    public static void write(Path file, BenchConfig config, MachineInfo machine, BenchResults run)
            throws IOException {
        Files.writeString(file, render(config, machine, run), StandardCharsets.UTF_8);
    }

    static String render(BenchConfig config, MachineInfo machine, BenchResults run) {
        List<WorkloadResult> results = run.results();
        Headline headline = new Headline(results);
        List<String> engines = headline.engines();
        StringBuilder h = new StringBuilder();
        h.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n")
                .append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"UTF-8\"/>\n")
                .append("<title>BloomStore benchmark</title>\n<style>").append(CSS).append("</style>\n</head>\n<body>\n")
                .append("<h1>BloomStore benchmark</h1>\n");
        h.append("<p class=\"note\">").append(escape(machine.describe())).append("<br/>")
                .append(escape(String.format(Locale.ROOT,
                        "%,d keys of %d bytes, values of %d bytes, %d thread(s), %,d operations per read workload, "
                                + "%s filter at %.1f bits/key (theory FPR %.4f), block cache %d MiB, memtable %d MiB, "
                                + "compression %s, %s keys, seed %d, %d round(s) with the engine order rotated; "
                                + "RocksDB statistics: %s",
                        config.keys(), config.keySize(), config.valueSize(), config.threads(), config.reads(),
                        config.filterKind().cliName(), config.bitsPerKey(), config.theoreticalFpr(),
                        config.blockCacheBytes() >> 20, config.memtableBytes() >> 20,
                        config.compression().name().toLowerCase(Locale.ROOT),
                        config.distribution().name().toLowerCase(Locale.ROOT), config.seed(), run.rounds(),
                        RocksDbEngine.STATS_LEVEL)))
                .append("</p>\n");
        headlineList(h, headline);

        List<Workload> all = workloads(results, false);
        List<Workload> lookups = workloads(results, true);
        List<Workload> reads = all.stream().filter(w -> !w.isFill()).toList();
        chartSection(h, "throughput", "Throughput", "Operations per second, per engine and workload"
                        + (run.rounds() > 1 ? " (median of " + run.rounds() + " rounds)." : "."),
                SvgChart.bars("Throughput (ops/s)", "ops/s", names(all), engines,
                        values(headline, engines, all, WorkloadResult::opsPerSec)));
        chartSection(h, "disk-reads", "Disk reads per lookup",
                "Data blocks read from table files per point lookup (block-cache misses). An engine with filters "
                        + "reads about FPR × tables consulted for a missing key; without filters, one block per table.",
                SvgChart.bars("Data-block reads per lookup", "reads per lookup", names(lookups), engines,
                        values(headline, engines, lookups, WorkloadResult::dataBlockReadsPerOp)));
        chartSection(h, "fpr", "Measured false-positive rate against theory",
                "Each point is an engine's measured FPR over all its read workloads, at the configured bits per key.",
                SvgChart.fprCurve("False-positive rate vs bits per key", fprPoints(config, engines, results)));
        chartSection(h, "saved", "Disk accesses saved",
                "Filter negatives: tables the filter ruled out, each one data-block read that never happened.",
                SvgChart.bars("Disk accesses saved (filter negatives)", "accesses saved", names(reads), engines,
                        values(headline, engines, reads,
                                r -> r.counters().kept() ? (double) r.diskAccessesSaved() : Double.NaN)));
        perWorkloadCharts(h, headline, engines, all, run.rounds());
        if (run.rounds() > 1) {
            summaryTable(h, headline.summary(), run.rounds());
        }
        if (!run.cold().isEmpty()) {
            coldTable(h, run.cold());
        }
        if (!run.open().isEmpty()) {
            openTable(h, run.open());
        }
        if (!run.closes().isEmpty()) {
            closeTable(h, run.closes());
        }
        resultsTable(h, results);
        return h.append("</body>\n</html>\n").toString();
    }

    private static void headlineList(StringBuilder h, Headline headline) {
        h.append("<section id=\"headline\">\n<h2>Headline</h2>\n<ul>\n");
        for (String e : headline.engines()) {
            h.append("<li>").append(escape(e)).append(": ").append(headline.keepsCounters(e)
                    ? String.format(Locale.ROOT, "%,d disk accesses saved", headline.diskAccessesSaved(e))
                    : "no table or filter counters");
            headline.readsPerMissingLookup(e).ifPresent(v ->
                    h.append(String.format(Locale.ROOT, ", %.4f data-block reads per missing lookup", v)));
            headline.ratios().getOrDefault(e, Map.of()).forEach((w, v) ->
                    h.append(String.format(Locale.ROOT, ", %s %.2f× %s", w.cliName(), v, Headline.BASELINE)));
            h.append("</li>\n");
        }
        h.append("</ul>\n</section>\n");
    }

    private static void chartSection(StringBuilder h, String id, String heading, String note, String svg) {
        h.append("<section class=\"chart\" id=\"").append(id).append("\">\n<h2>").append(escape(heading))
                .append("</h2>\n<p class=\"note\">").append(escape(note)).append("</p>\n").append(svg)
                .append("</section>\n");
    }

    /**
     * One chart per workload, every engine a bar of its ops/s (the median over rounds), and under it
     * each engine's ratio to BloomStore's: the median of the per-round ratios bloomstore / that engine.
     * An engine that did not run the workload has no bar and says so.
     */
    private static void perWorkloadCharts(StringBuilder h, Headline headline, List<String> engines,
            List<Workload> workloads, int rounds) {
        h.append("<section id=\"per-workload\">\n<h2>Every engine, workload by workload</h2>\n");
        for (Workload w : workloads) {
            double[][] v = values(headline, engines, List.of(w), WorkloadResult::opsPerSec);
            StringBuilder note = new StringBuilder("Operations per second")
                    .append(rounds > 1 ? " (median of " + rounds + " rounds)." : ".");
            Summary.Row ours = headline.summary().find(BloomStoreEngine.NAME, w);
            for (int e = 0; e < engines.size(); e++) {
                String engine = engines.get(e);
                if (Double.isNaN(v[e][0])) {
                    note.append(' ').append(engine).append(": did not run ").append(w.cliName()).append('.');
                } else if (ours != null && ours.medianRatioTo().containsKey(engine)) {
                    note.append(String.format(Locale.ROOT, " %s / %s: %.2f×.", BloomStoreEngine.NAME, engine,
                            ours.medianRatioTo().get(engine)));
                }
            }
            h.append("<section class=\"chart\" id=\"workload-").append(w.cliName()).append("\">\n<h3>")
                    .append(w.cliName()).append("</h3>\n<p class=\"note\">").append(escape(note.toString()))
                    .append("</p>\n").append(SvgChart.bars(w.cliName() + " (ops/s)", "ops/s", List.of(w.cliName()),
                            engines, v))
                    .append("</section>\n");
        }
        h.append("</section>\n");
    }

    private static void summaryTable(StringBuilder h, Summary summary, int rounds) {
        h.append("<section id=\"summary\">\n<h2>Summary over ").append(rounds).append(" rounds</h2>\n<table>\n");
        headerRow(h, "engine", "workload", "median ops/s", "min ops/s", "max ops/s",
                "median ratio to " + Headline.BASELINE);
        for (Summary.Row r : summary.rows()) {
            h.append("<tr><td class=\"l\">").append(escape(r.engine())).append("</td><td class=\"l\">")
                    .append(r.workload().cliName()).append("</td>");
            cell(h, String.format(Locale.ROOT, "%,.0f", r.medianOpsPerSec()));
            cell(h, String.format(Locale.ROOT, "%,.0f", r.minOpsPerSec()));
            cell(h, String.format(Locale.ROOT, "%,.0f", r.maxOpsPerSec()));
            cell(h, ResultTable.ratio(r.medianRatioToBaseline()));
            h.append("</tr>\n");
        }
        h.append("</table>\n<p class=\"note\">The ratio is the median over rounds of the engine's ops/s divided by "
                + "the baseline's in the same round; the engine order was rotated every round.</p>\n</section>\n");
    }

    private static void coldTable(StringBuilder h, List<ColdResult> cold) {
        h.append("<section id=\"cold\">\n<h2>Cold start</h2>\n<table>\n");
        headerRow(h, "engine", "round", "ops", "startup ms", "fill ops/s", "read ops/s",
                "fill cpu ms (process/thread/JIT)", "read cpu ms (process/thread/JIT)");
        for (ColdResult c : cold) {
            h.append("<tr><td class=\"l\">").append(escape(c.engine())).append("</td>");
            cell(h, Integer.toString(c.round() + 1));
            cell(h, String.format(Locale.ROOT, "%,d", c.ops()));
            cell(h, String.format(Locale.ROOT, "%,.0f", c.startupMillis()));
            cell(h, String.format(Locale.ROOT, "%,.0f", c.fillOpsPerSec()));
            cell(h, String.format(Locale.ROOT, "%,.0f", c.readOpsPerSec()));
            cell(h, ColdResult.cpuCell(c.fillCpuMillis(), c.fillThreadCpuMillis(), c.fillJitCpuMillis(), " / "));
            cell(h, ColdResult.cpuCell(c.readCpuMillis(), c.readThreadCpuMillis(), c.readJitCpuMillis(), " / "));
            h.append("</tr>\n");
        }
        h.append("</table>\n<p class=\"note\">A fresh JVM per engine and round, no warm-up: the first operations of "
                + "the process (random puts into an empty store), then as many random lookups of the keys written. "
                + "Startup: from the JVM's start to the open store.</p>\n</section>\n");
    }

    private static void closeTable(StringBuilder h, List<CloseResult> closes) {
        h.append("<section id=\"close\">\n<h2>Close after writes</h2>\n<table>\n");
        headerRow(h, "engine", "after", "rounds", "median ms", "max ms");
        for (CloseSummary c : CloseSummary.of(closes)) {
            h.append("<tr><td class=\"l\">").append(escape(c.engine())).append("</td>");
            h.append("<td class=\"l\">").append(escape(c.after().cliName())).append("</td>");
            cell(h, Integer.toString(c.rounds()));
            cell(h, String.format(Locale.ROOT, "%.1f", c.medianMillis()));
            cell(h, String.format(Locale.ROOT, "%.1f", c.maxMillis()));
            h.append("</tr>\n");
        }
        h.append("</table>\n<p class=\"note\">The store closed as soon as the writing workload's last operation returned: memtable "
                + "unflushed, background compaction likely running.</p>\n</section>\n");
    }

    private static void openTable(StringBuilder h, List<OpenResult> open) {
        h.append("<section id=\"open\">\n<h2>Open and memory</h2>\n<table>\n");
        headerRow(h, "engine", "round", "keys", "engine load ms", "first open ms", "close ms", "second open ms", "heap after open MiB", "heap after reads MiB",
                "RSS after open MiB", "RSS after reads MiB", "filter bytes mapped MiB", "index on heap MiB",
                "native index+filter MiB", "data on disk MiB", "read ops/s");
        for (OpenResult o : open) {
            h.append("<tr><td class=\"l\">").append(escape(o.engine())).append("</td>");
            cell(h, Integer.toString(o.round() + 1));
            cell(h, String.format(Locale.ROOT, "%,d", o.keys()));
            cell(h, String.format(Locale.ROOT, "%,.0f", o.loadMillis()));
            cell(h, String.format(Locale.ROOT, "%,.0f", o.openMillis()));
            cell(h, String.format(Locale.ROOT, "%,.1f", o.closeMillis()));
            cell(h, String.format(Locale.ROOT, "%,.0f", o.reopenMillis()));
            for (long bytes : new long[] {o.heapAfterOpenBytes(), o.heapAfterReadsBytes(), o.rssAfterOpenBytes(),
                    o.rssAfterReadsBytes(), o.memory().filterBytesMapped(), o.memory().indexHeapBytes(),
                    o.memory().nativeTableBytes(), o.dataBytesOnDisk()}) {
                cell(h, ResultTable.mib(bytes));
            }
            cell(h, String.format(Locale.ROOT, "%,.0f", o.readOpsPerSec()));
            h.append("</tr>\n");
        }
        h.append("</table>\n<p class=\"note\">The loaded store, flushed and closed, reopened in a fresh JVM per "
                + "engine, opened twice: engine load is making the engine object (RocksDB loads its native library "
                + "there), the first open includes the rest of loading and initialising the engine's classes, "
                + "its close (right after it) stops what background work the open started, the second is what depends on the store; heap figures after a full GC, RSS from "
                + "/proc/self/status; then " + OpenProbe.READS
                + " random lookups of loaded keys.</p>\n</section>\n");
    }

    private static void headerRow(StringBuilder h, String... columns) {
        h.append("<tr>");
        for (String c : columns) {
            h.append("<th>").append(escape(c)).append("</th>");
        }
        h.append("</tr>\n");
    }

    private static void resultsTable(StringBuilder h, List<WorkloadResult> results) {
        h.append("<section id=\"results\">\n<h2>All results</h2>\n<table>\n");
        headerRow(h, "engine", "workload", "round", "ops", "ops/s", "writer ops/s", "p50 µs", "p99 µs", "p99.9 µs",
                "blocks/op", "filter reads/op", "tables/op", "saved", "saved/op", "FPR measured/configured",
                "OS read calls", "OS bytes read");
        for (WorkloadResult r : results) {
            h.append("<tr><td class=\"l\">").append(escape(r.engine())).append("</td><td class=\"l\">")
                    .append(r.workload().cliName()).append("</td>");
            cell(h, Integer.toString(r.round() + 1));
            cell(h, String.format(Locale.ROOT, "%,d", r.ops()));
            cell(h, String.format(Locale.ROOT, "%,.0f", r.opsPerSec()));
            cell(h, ResultTable.writer(r));
            cell(h, String.format(Locale.ROOT, "%.1f", r.p50Micros()));
            cell(h, String.format(Locale.ROOT, "%.1f", r.p99Micros()));
            cell(h, String.format(Locale.ROOT, "%.1f", r.p999Micros()));
            cell(h, ResultTable.counter(r, "%.4f", r.dataBlockReadsPerOp()));
            cell(h, ResultTable.counter(r, "%.5f", r.filterFileReadsPerOp()));
            cell(h, ResultTable.counter(r, "%.2f", r.tablesConsultedPerOp()));
            cell(h, ResultTable.counter(r, "%,.0f", r.diskAccessesSaved()));
            cell(h, ResultTable.counter(r, "%.3f", r.diskAccessesSavedPerOp()));
            cell(h, ResultTable.fpr(r));
            cell(h, r.osIo().map(io -> String.format(Locale.ROOT, "%,d", io.readSyscalls())).orElse("n/a"));
            cell(h, r.osIo().map(io -> String.format(Locale.ROOT, "%,d", io.storageReadBytes())).orElse("n/a"));
            h.append("</tr>\n");
        }
        h.append("</table>\n<p class=\"note\">blocks/op: data blocks read from table files per operation "
                + "(block-cache misses). filter reads/op: filters read from table files (BloomStore's sidecar "
                + "checksum checks, once per table; RocksDB's filter-block cache misses), so a missing lookup with "
                + "neither touched no table file. tables/op: tables whose key range held the key. saved: filter "
                + "negatives, also per operation. writer ops/s: readwhilewriting's writer beside its readers. "
                + "OS columns: /proc/self/io deltas for the whole process (read system calls; bytes fetched from "
                + "storage, i.e. page-cache misses), background work included.</p>\n</section>\n");
    }

    private static void cell(StringBuilder h, String text) {
        h.append("<td>").append(escape(text)).append("</td>");
    }

    private static List<SvgChart.Point> fprPoints(BenchConfig config, List<String> engines, List<WorkloadResult> results) {
        List<SvgChart.Point> points = new ArrayList<>();
        for (int i = 0; i < engines.size(); i++) {
            String e = engines.get(i);
            EngineCounters sum = null;
            for (WorkloadResult r : results) {
                if (r.engine().equals(e) && !r.workload().isFill() && r.round() == 0) {
                    sum = sum == null ? r.counters() : sum.plus(r.counters());
                }
            }
            if (sum != null && !Double.isNaN(sum.measuredFpr())) {
                points.add(new SvgChart.Point(e, config.bitsPerKey(), sum.measuredFpr(), i));
            }
        }
        return points;
    }

    private static List<Workload> workloads(List<WorkloadResult> results, boolean pointLookupsOnly) {
        return results.stream().map(WorkloadResult::workload).distinct().sorted()
                .filter(w -> !pointLookupsOnly || w.isPointLookup()).toList();
    }

    private static List<String> names(List<Workload> workloads) {
        return workloads.stream().map(Workload::cliName).toList();
    }

    private static double[][] values(Headline headline, List<String> engines, List<Workload> workloads,
            ToDoubleFunction<WorkloadResult> metric) {
        double[][] v = new double[engines.size()][workloads.size()];
        for (int e = 0; e < engines.size(); e++) {
            for (int w = 0; w < workloads.size(); w++) {
                v[e][w] = headline.median(engines.get(e), workloads.get(w), metric);
            }
        }
        return v;
    }

    /** Escapes text for XML content and attribute values. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
