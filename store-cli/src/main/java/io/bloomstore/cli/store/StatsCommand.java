package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bloomstore stats}: the store's tables per level (files, table bytes, filter bytes
 * mapped), the filter policy for new tables with its configured false-positive rate, and the
 * engine's counters: gets, disk accesses saved (filter negatives), filter positives and true
 * positives, measured FPR, data-block reads, bytes read, block-cache hits, flushes.
 * {@code --json} prints the same with {@link StoreStats}'s names.
 *
 * <p>The counters live in the process that opened the store and start at zero on every open;
 * each {@code bloomstore} command is its own process, so here they count only what opening the
 * store did (recovery flushes). A service embedding the store reads them from
 * {@link Store#stats()}; {@code bloomstore bench} reports them per workload.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Show tables and filters per level, and the engine's counters.",
            "Counters are per process: they start at zero when a command opens the store."})
public final class StatsCommand extends StoreCommand {
    static final String COUNTERS_NOTE = "counters since this command opened the store (they are per process and "
            + "start at zero on every open)";

    @Option(names = "--json", description = "Print JSON with the statistics' API names.")
    private boolean json;

    @Override
    public Integer call() throws IOException {
        StoreStats s;
        StoreOptions options;
        try (Store store = open(false)) {
            s = store.stats();
            options = store.options();
        }
        PrintWriter out = out();
        if (json) {
            out.println(Json.write(jsonObject(s, options)));
        } else {
            printText(out, s, options);
        }
        out.flush();
        return ExitCodes.OK;
    }

    private Map<String, Object> jsonObject(StoreStats s, StoreOptions options) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("dir", dataDir().toString());
        j.put("gets", s.gets());
        j.put("tableLookups", s.tableLookups());
        j.put("filterNegatives", s.filterNegatives());
        j.put("filterPositives", s.filterPositives());
        j.put("filterTruePositives", s.filterTruePositives());
        j.put("measuredFpr", s.measuredFpr());
        j.put("configuredFpr", s.configuredFpr());
        j.put("dataBlockReads", s.dataBlockReads());
        j.put("bytesRead", s.bytesRead());
        j.put("blockCacheHits", s.blockCacheHits());
        j.put("blockCacheMisses", s.blockCacheMisses());
        j.put("flushes", s.flushes());
        List<Map<String, Object>> levels = new ArrayList<>();
        for (StoreStats.LevelStats l : s.levels()) {
            Map<String, Object> level = new LinkedHashMap<>();
            level.put("level", l.level());
            level.put("files", l.files());
            level.put("tableBytes", l.tableBytes());
            level.put("filterFileBytes", l.filterFileBytes());
            levels.add(level);
        }
        j.put("levels", levels);
        j.put("filterBytes", s.filterBytes());
        j.put("filterKind", options.filterKind() == null ? null : options.filterKind().cliName());
        j.put("bitsPerKey", options.bitsPerKey());
        j.put("countersSince", "open");
        return j;
    }

    private void printText(PrintWriter out, StoreStats s, StoreOptions options) {
        out.println("store " + dataDir());
        out.printf(Locale.ROOT, "%-6s %7s %14s %14s%n", "level", "files", "table bytes", "filter bytes");
        long tableBytes = 0;
        long filterBytes = 0;
        for (StoreStats.LevelStats l : s.levels()) {
            tableBytes += l.tableBytes();
            filterBytes += l.filterFileBytes();
            if (l.files() > 0) {
                out.printf(Locale.ROOT, "%-6s %7s %14s %14s%n", "L" + l.level(), Units.count(l.files()),
                        Units.bytes(l.tableBytes()), Units.bytes(l.filterFileBytes()));
            }
        }
        out.printf(Locale.ROOT, "%-6s %7s %14s %14s%n", "total", Units.count(s.totalFiles()), Units.bytes(tableBytes),
                Units.bytes(filterBytes));
        out.println("filters mapped: " + Units.bytes(s.filterBytes()) + "; new tables get "
                + (options.filterKind() == null ? "no filter"
                : String.format(Locale.ROOT, "a %s filter of %.1f bits/key, configured FPR %s",
                options.filterKind().cliName(), options.bitsPerKey(), Units.percent(s.configuredFpr()))));
        out.println(COUNTERS_NOTE + ":");
        row(out, "gets", Units.count(s.gets()));
        row(out, "tables consulted", Units.count(s.tableLookups()));
        row(out, "disk accesses saved", Units.count(s.filterNegatives()) + " (filter negatives)");
        row(out, "filter positives", Units.count(s.filterPositives()) + " (true " + Units.count(s.filterTruePositives())
                + ", false " + Units.count(s.filterFalsePositives()) + ")");
        row(out, "measured FPR", Units.percent(s.measuredFpr()) + " (configured " + Units.percent(s.configuredFpr())
                + ")");
        row(out, "data-block reads", Units.count(s.dataBlockReads()) + " (" + Units.bytes(s.bytesRead()) + ")");
        row(out, "block-cache hits", Units.count(s.blockCacheHits()) + " (misses " + Units.count(s.blockCacheMisses())
                + ")");
        row(out, "flushes", Units.count(s.flushes()));
    }

    private static void row(PrintWriter out, String name, String value) {
        out.printf(Locale.ROOT, "  %-20s %s%n", name, value);
    }
}
