package io.bloomstore.cli.store;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.bloomstore.cli.Units;
import io.bloomstore.core.CumulativeStats;
import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.StoreStats.LevelStats;

/**
 * What {@code bloomstore stats} prints, as text or as JSON, for a store's {@link StoreStats}:
 * see {@link StatsCommand}. Apart from the command so that the picocli-free short path
 * ({@link QuickCommands}) prints exactly the same.
 *
 * <p>Thread safety: stateless.
 */
final class StatsReport {
    static final String COUNTERS_NOTE = "per level, counters since this command opened the store";
    // Column widths (Units.row: negative = left-aligned), the layout of printf's "%-6s %7s ...".
    private static final int[] SHAPE_ROW = {-6, 7, 12, 12, 12, 9, 0};
    private static final int[] EFFECT_ROW = {-6, 12, 12, 12, 18, 10, 9, 12};
    private static final int[] TABLE_ROW = {-8, 5, 12, 13, 10, 12, 12};
    private static final int TABLES_SHOWN = 20;
    private static final int[] COUNTER_ROW = {-22, 14, 16};

    private StatsReport() {
    }

    /**
     * Bits of filter actually spent per entry at a level: filter file bytes × 8 / entries (NaN for
     * an empty level). Entries count every version, so on a level holding overwrites this is below
     * the bits per distinct key the filter was built with.
     */
    static double filterBitsPerKey(LevelStats l) {
        return l.entries() == 0 ? Double.NaN : l.filterFileBytes() * 8.0 / l.entries();
    }

    static Map<String, Object> jsonObject(Path dir, StoreStats s, StoreOptions options) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("dir", dir.toString());
        j.put("gets", s.gets());
        j.put("tableLookups", s.tableLookups());
        j.put("filterNegatives", s.filterNegatives());
        j.put("filterPositives", s.filterPositives());
        j.put("filterTruePositives", s.filterTruePositives());
        j.put("filterFalsePositives", s.filterFalsePositives());
        j.put("measuredFpr", s.measuredFpr());
        j.put("configuredFpr", s.configuredFpr());
        j.put("expectedReadsPerMissingLookup", s.expectedReadsPerMissingLookup());
        j.put("dataBlockReads", s.dataBlockReads());
        j.put("bytesRead", s.bytesRead());
        j.put("blockCacheHits", s.blockCacheHits());
        j.put("blockCacheMisses", s.blockCacheMisses());
        j.put("flushes", s.flushes());
        j.put("compactions", s.compactions());
        j.put("trivialMoves", s.trivialMoves());
        j.put("rangeTombstones", s.rangeTombstones());
        j.put("rangeDeletedTables", s.rangeDeletedTables());
        j.put("compactionBytesRead", s.compactionBytesRead());
        j.put("compactionBytesWritten", s.compactionBytesWritten());
        j.put("flushBytesWritten", s.flushBytesWritten());
        j.put("userBytesWritten", s.userBytesWritten());
        j.put("writeAmplification", s.writeAmplification());
        j.put("writeSlowdowns", s.writeSlowdowns());
        j.put("writeStops", s.writeStops());
        j.put("prefixScans", s.prefixScans());
        j.put("prefixChecked", s.prefixChecked());
        j.put("prefixUseful", s.prefixUseful());
        j.put("rangeScans", s.rangeScans());
        j.put("rangeChecked", s.rangeChecked());
        j.put("rangeUseful", s.rangeUseful());
        List<Map<String, Object>> levels = new ArrayList<>();
        for (LevelStats l : s.levels()) {
            levels.add(jsonLevel(l));
        }
        j.put("levels", levels);
        List<Map<String, Object>> tables = new ArrayList<>();
        for (StoreStats.TableFilterStats t : s.tables()) {
            Map<String, Object> table = new LinkedHashMap<>();
            table.put("level", t.level());
            table.put("fileNumber", t.fileNumber());
            table.put("keyFilterBytes", t.keyFilterBytes());
            table.put("prefixFilterBytes", t.prefixFilterBytes());
            table.put("rangeFilterBytes", t.rangeFilterBytes());
            table.put("prefixExtractor", t.prefixExtractor());
            table.put("sidecarBytes", t.sidecarBytes());
            tables.add(table);
        }
        j.put("tables", tables);
        j.put("totalFiles", s.totalFiles());
        j.put("filterBytes", s.filterBytes());
        j.put("indexHeapBytes", s.indexHeapBytes());
        j.put("indexOffHeapBytes", s.indexOffHeapBytes());
        j.put("filterPolicy", s.filterPolicy());
        j.put("filterKind", options.filterKind() == null ? null : options.filterKind().cliName());
        j.put("bitsPerKey", options.bitsPerKey());
        j.put("prefixExtractor", options.prefixExtractor() == null ? null : options.prefixExtractor().toString());
        j.put("rangeFilter", rangeFilterJson(options.rangeFilter()));
        j.put("countersSince", "open");
        j.put("filterMemory", s.filterMemory());
        j.put("cumulative", jsonCumulative(s.cumulative()));
        return j;
    }

    /** The counters since the store was created, under the same names as this open's. */
    private static Map<String, Object> jsonCumulative(CumulativeStats c) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("gets", c.gets());
        j.put("tableLookups", c.tableLookups());
        j.put("filterNegatives", c.filterNegatives());
        j.put("filterPositives", c.filterPositives());
        j.put("filterTruePositives", c.filterTruePositives());
        j.put("filterFalsePositives", c.filterFalsePositives());
        j.put("measuredFpr", c.measuredFpr());
        j.put("dataBlockReads", c.dataBlockReads());
        j.put("bytesRead", c.bytesRead());
        j.put("blockCacheHits", c.blockCacheHits());
        j.put("blockCacheMisses", c.blockCacheMisses());
        j.put("flushes", c.flushes());
        j.put("compactions", c.compactions());
        j.put("compactionBytesRead", c.compactionBytesRead());
        j.put("compactionBytesWritten", c.compactionBytesWritten());
        j.put("flushBytesWritten", c.flushBytesWritten());
        j.put("userBytesWritten", c.userBytesWritten());
        j.put("writeAmplification", c.writeAmplification());
        j.put("writeSlowdowns", c.writeSlowdowns());
        j.put("writeStops", c.writeStops());
        j.put("prefixScans", c.prefixScans());
        j.put("prefixChecked", c.prefixChecked());
        j.put("prefixUseful", c.prefixUseful());
        j.put("rangeScans", c.rangeScans());
        j.put("rangeChecked", c.rangeChecked());
        j.put("rangeUseful", c.rangeUseful());
        return j;
    }

    private static Map<String, Object> jsonLevel(LevelStats l) {
        Map<String, Object> level = new LinkedHashMap<>();
        level.put("level", l.level());
        level.put("files", l.files());
        level.put("tableBytes", l.tableBytes());
        level.put("filterFileBytes", l.filterFileBytes());
        level.put("entries", l.entries());
        level.put("filterBitsPerKey", finiteOrNull(filterBitsPerKey(l)));
        Map<String, Object> policy = new LinkedHashMap<>();
        FilterChoice c = l.policy();
        policy.put("kind", c.kind() == null ? null : c.kind().cliName());
        policy.put("bitsPerKey", c.bitsPerKey());
        policy.put("skipped", c.skipped());
        policy.put("reason", c.reason());
        level.put("policy", policy);
        level.put("expectedFpr", l.expectedFpr());
        level.put("filterNegatives", l.filterNegatives());
        level.put("filterPositives", l.filterPositives());
        level.put("filterTruePositives", l.filterTruePositives());
        level.put("measuredFpr", l.measuredFpr());
        level.put("probes", l.probes());
        level.put("hitRatio", finiteOrNull(l.hitRatio()));
        level.put("filterBytesSaved", l.filterBytesSaved());
        level.put("prefixChecked", l.prefixChecked());
        level.put("prefixUseful", l.prefixUseful());
        level.put("prefixFilterBytes", l.prefixFilterBytes());
        level.put("rangeChecked", l.rangeChecked());
        level.put("rangeUseful", l.rangeUseful());
        level.put("rangeFilterBytes", l.rangeFilterBytes());
        return level;
    }

    /** JSON has no NaN: a rate not yet measured is null. */
    private static Double finiteOrNull(double v) {
        return Double.isFinite(v) ? v : null;
    }

    static void printText(PrintWriter out, Path dir, StoreStats s, StoreOptions options) {
        out.println("store " + dir + " (filter policy " + s.filterPolicy() + ")");
        out.println(Units.row(SHAPE_ROW, "level", "files", "table bytes", "entries", "filter bytes", "bits/key",
                " filter for new tables"));
        long tableBytes = 0;
        long filterBytes = 0;
        long entries = 0;
        for (LevelStats l : s.levels()) {
            tableBytes += l.tableBytes();
            filterBytes += l.filterFileBytes();
            entries += l.entries();
            if (shown(l)) {
                out.println(Units.row(SHAPE_ROW, "L" + l.level(), Units.count(l.files()), Units.bytes(l.tableBytes()),
                        Units.count(l.entries()), Units.bytes(l.filterFileBytes()), bits(filterBitsPerKey(l)),
                        " " + l.policy()));
            }
        }
        out.println(Units.row(SHAPE_ROW, "total", Units.count(s.totalFiles()),
                Units.bytes(tableBytes), Units.count(entries), Units.bytes(filterBytes),
                bits(entries == 0 ? Double.NaN : filterBytes * 8.0 / entries)));
        int level0 = s.levels().isEmpty() ? 0 : s.levels().get(0).files();
        if (level0 >= options.l0CompactionTrigger()) {
            // The short writing commands start no compaction (StoreActions#withoutCompaction): say
            // how to merge what they leave, which every lookup may otherwise consult table by table.
            out.println("level 0 holds " + level0 + " tables (compaction trigger " + options.l0CompactionTrigger()
                    + "): `bloomstore compact` merges them; put, delete and flush leave compaction to longer runs");
        }
        // Mapped by this process (a table's filter by its first lookup; these figures come from the
        // sidecars' headers): 0 B for a command that looked nothing up.
        out.println("filters mapped by this command: " + Units.bytes(s.filterBytes()) + "; new tables get "
                + (options.filterKind() == null ? "no filter"
                : "a " + options.filterKind().cliName() + " filter of " + Units.fixed(options.bitsPerKey(), 1)
                + " bits/key, configured FPR " + Units.percent(s.configuredFpr()))
                + "; expected reads per missing lookup " + Units.fixed(s.expectedReadsPerMissingLookup(), 4));
        out.println("table indexes: " + Units.bytes(s.indexOffHeapBytes()) + " off the heap, "
                + Units.bytes(s.indexHeapBytes()) + " on it");
        out.println(COUNTERS_NOTE + ":");
        out.println(Units.row(EFFECT_ROW, "level", "expected FPR", "measured FPR", "disk saved", "positives (true)",
                "probes", "hit ratio", "bytes saved"));
        for (LevelStats l : s.levels()) {
            if (shown(l)) {
                out.println(Units.row(EFFECT_ROW, "L" + l.level(), Units.percent(l.expectedFpr()),
                        Units.percent(l.measuredFpr()), Units.count(l.filterNegatives()),
                        Units.count(l.filterPositives()) + " (" + Units.count(l.filterTruePositives()) + ")",
                        Units.count(l.probes()), Double.isNaN(l.hitRatio()) ? "-" : Units.percent(l.hitRatio()),
                        Units.bytes(l.filterBytesSaved())));
            }
        }
        printTables(out, s);
        CumulativeStats c = s.cumulative();
        out.println(Units.row(COUNTER_ROW, "counters", "this open", "since creation"));
        row(out, "gets", Units.count(s.gets()), Units.count(c.gets()));
        row(out, "tables consulted", Units.count(s.tableLookups()), Units.count(c.tableLookups()));
        row(out, "disk accesses saved", Units.count(s.filterNegatives()), Units.count(c.filterNegatives()));
        row(out, "filter positives", Units.count(s.filterPositives()), Units.count(c.filterPositives()));
        row(out, "  true", Units.count(s.filterTruePositives()), Units.count(c.filterTruePositives()));
        row(out, "  false", Units.count(s.filterFalsePositives()), Units.count(c.filterFalsePositives()));
        row(out, "measured FPR", Units.percent(s.measuredFpr()), Units.percent(c.measuredFpr()));
        row(out, "data-block reads", Units.count(s.dataBlockReads()), Units.count(c.dataBlockReads()));
        row(out, "bytes read", Units.bytes(s.bytesRead()), Units.bytes(c.bytesRead()));
        row(out, "block-cache hits", Units.count(s.blockCacheHits()), Units.count(c.blockCacheHits()));
        row(out, "block-cache misses", Units.count(s.blockCacheMisses()), Units.count(c.blockCacheMisses()));
        row(out, "flushes", Units.count(s.flushes()), Units.count(c.flushes()));
        row(out, "flush bytes", Units.bytes(s.flushBytesWritten()), Units.bytes(c.flushBytesWritten()));
        row(out, "compactions", Units.count(s.compactions()), Units.count(c.compactions()));
        row(out, "compaction read", Units.bytes(s.compactionBytesRead()), Units.bytes(c.compactionBytesRead()));
        row(out, "compaction written", Units.bytes(s.compactionBytesWritten()), Units.bytes(c.compactionBytesWritten()));
        row(out, "user bytes written", Units.bytes(s.userBytesWritten()), Units.bytes(c.userBytesWritten()));
        row(out, "write amplification", Units.fixed(s.writeAmplification(), 2), Units.fixed(c.writeAmplification(), 2));
        row(out, "writes slowed", Units.count(s.writeSlowdowns()), Units.count(c.writeSlowdowns()));
        row(out, "writes stopped", Units.count(s.writeStops()), Units.count(c.writeStops()));
        row(out, "prefix scans", Units.count(s.prefixScans()), Units.count(c.prefixScans()));
        row(out, "  prefix filters checked", Units.count(s.prefixChecked()), Units.count(c.prefixChecked()));
        row(out, "  tables skipped", Units.count(s.prefixUseful()), Units.count(c.prefixUseful()));
        row(out, "short-range scans", Units.count(s.rangeScans()), Units.count(c.rangeScans()));
        row(out, "  range filters checked", Units.count(s.rangeChecked()), Units.count(c.rangeChecked()));
        row(out, "  tables skipped", Units.count(s.rangeUseful()), Units.count(c.rangeUseful()));
        row(out, "tables moved down whole", Units.count(s.trivialMoves()), "-");
        row(out, "live range tombstones", Units.count(s.rangeTombstones()), "-");
        row(out, "tables dropped by range deletions", Units.count(s.rangeDeletedTables()), "-");
        out.println("configured FPR " + Units.percent(s.configuredFpr()) + "; filter memory " + s.filterMemory()
                + "; counters since creation are saved at each flush and at close");
    }

    /** Filter memory per table, the first {@value #TABLES_SHOWN} (JSON lists every one). */
    private static void printTables(PrintWriter out, StoreStats s) {
        if (s.tables().isEmpty()) {
            return;
        }
        out.println(Units.row(TABLE_ROW, "table", "level", "key filter", "prefix filter", "extractor",
                "range filter", "sidecar"));
        int shown = 0;
        for (StoreStats.TableFilterStats t : s.tables()) {
            if (shown++ == TABLES_SHOWN) {
                out.println("  ... " + (s.tables().size() - TABLES_SHOWN) + " more tables (--json lists all)");
                break;
            }
            out.println(Units.row(TABLE_ROW, Units.zeroPadded(t.fileNumber(), 6), "L" + t.level(),
                    Units.bytes(t.keyFilterBytes()), Units.bytes(t.prefixFilterBytes()),
                    t.prefixExtractor() == null ? "-" : t.prefixExtractor(), Units.bytes(t.rangeFilterBytes()),
                    Units.bytes(t.sidecarBytes())));
        }
    }

    /** A level is listed when it holds tables or its filters or tables answered a lookup. */
    private static boolean shown(LevelStats l) {
        return l.files() > 0 || l.probes() > 0 || l.filterNegatives() + l.filterPositives() > 0;
    }

    private static String bits(double v) {
        return Double.isNaN(v) ? "-" : Units.fixed(v, 2);
    }

    private static void row(PrintWriter out, String name, String thisOpen, String sinceCreation) {
        out.println(Units.row(COUNTER_ROW, "  " + name, thisOpen, sinceCreation));
    }

    /** The range filter option of this open: bits per key and the longest range (as 2^blockBits), or null. */
    private static Map<String, Object> rangeFilterJson(RangeFilterOptions r) {
        if (r == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bitsPerKey", r.bitsPerKey());
        m.put("blockBits", r.blockBits());
        return m;
    }
}
