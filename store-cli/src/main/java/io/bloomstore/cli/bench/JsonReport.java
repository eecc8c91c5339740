package io.bloomstore.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Writes a run as JSON ({@code --json FILE}): the configuration, the machine, a
 * {@code results} array with one object per engine, workload and round, the {@code summary}
 * over rounds, the cold-start and reopen probes, the closes after fills, and the headline (medians over rounds).
 * Rates that are undefined (no filter checks, no OS counters) are written as {@code null}, and so
 * are the table and filter counters of an engine that keeps none ({@link EngineCounters#kept()}).
 *
 * <pre>
 * { "config": {..., repeat, coldOps, writerRate, rocksdbStatistics}, "machine": {cores, jvm, os, arch, maxHeapBytes, heapSizing},
 *   "timestamp": ISO-8601,
 *   "results": [ { engine, workload, round, ops, seconds, opsPerSec, writerOpsPerSec, p50Micros, p99Micros,
 *                  p999Micros, found, dataBlockReadsPerOp, filterFileReads, filterFileReadsPerOp,
 *                  tablesConsultedPerOp, diskAccessesSaved, diskAccessesSavedPerOp, filterPositives,
 *                  filterTruePositives, measuredFpr, configuredFpr, blockCacheHits, bytesRead,
 *                  osReadSyscalls, osStorageReadBytes, deviceReads, deviceReadBytes } ],
 *   "summary": [ { engine, workload, rounds, medianOpsPerSec, minOpsPerSec, maxOpsPerSec,
 *                  medianRatioToRocksdb, medianRatioTo: {other engine: median over rounds of this
 *                  engine's ops/s / the other's in the same round} } ],
 *   "cold": [ { engine, round, ops, startupMillis, fillOpsPerSec, readOpsPerSec, fillCpuMillis, readCpuMillis,
 *               fillThreadCpuMillis, readThreadCpuMillis, fillJitCpuMillis, readJitCpuMillis } ],
 *   "open": [ { engine, round, keys, loadMillis, openMillis, closeMillis, reopenMillis, baselineHeapBytes, heapAfterOpenBytes, heapAfterReadsBytes,
 *               rssAfterOpenBytes, rssAfterReadsBytes, filterBytesMapped, indexHeapBytes, nativeTableBytes,
 *               dataBytesOnDisk, reads, readOpsPerSec } ],
 *   "close": [ { engine, round, after, millis } ],
 *   "closeSummary": [ { engine, after, rounds, medianMillis, maxMillis } ],
 *   "load": [ { engine, round, filterBitsPerKey, bytesWritten, userBytes, writeAmplification, bytesOnDisk } ],
 *   "secondsSpent": { engine: { warm_up, cold_probe, load, settle, measured, open_probe, total } },
 *   "headline": { "diskAccessesSaved": {engine: n}, "readsPerMissingLookup": {engine: x},
 *                 "opsPerSecRatioToRocksdb": {engine: {workload: x}} } }
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
public final class JsonReport {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static void write(Path file, BenchConfig config, MachineInfo machine, BenchResults run, int coldOps)
            throws IOException {
        write(file, config, machine, run, coldOps, List.of(), 0);
    }

    /**
     * As {@link #write(Path, BenchConfig, MachineInfo, BenchResults, int)}, with the one-shot command latencies
     * and readwhilewriting's writer rate (0: unpaced).
     */
    public static void write(Path file, BenchConfig config, MachineInfo machine, BenchResults run, int coldOps,
                             List<OneShotResult> oneShot, double writerRate) throws IOException {
        ObjectNode root = toJson(config, machine, run, coldOps);
        ((ObjectNode) root.get("config")).put("writerRate", writerRate);
        if (!oneShot.isEmpty()) {
            root.set("oneShot", MAPPER.valueToTree(oneShot));
        }
        MAPPER.writeValue(file.toFile(), root);
    }

    static ObjectNode toJson(BenchConfig config, MachineInfo machine, BenchResults run, int coldOps) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("benchmark", "bloomstore bench");
        root.put("timestamp", Instant.now().toString());
        ObjectNode c = MAPPER.valueToTree(config);
        c.put("theoreticalFpr", config.theoreticalFpr());
        c.put("repeat", run.rounds());
        c.put("coldOps", coldOps);
        c.put("rocksdbStatistics", RocksDbEngine.STATS_LEVEL);
        root.set("config", c);
        root.set("machine", MAPPER.valueToTree(machine));
        ArrayNode array = root.putArray("results");
        for (WorkloadResult r : run.results()) {
            array.add(result(r));
        }
        ArrayNode summary = root.putArray("summary");
        for (Summary.Row r : new Summary(run.results()).rows()) {
            ObjectNode o = summary.addObject();
            o.put("engine", r.engine());
            o.put("workload", r.workload().cliName());
            o.put("rounds", r.rounds());
            o.put("medianOpsPerSec", r.medianOpsPerSec());
            o.put("minOpsPerSec", r.minOpsPerSec());
            o.put("maxOpsPerSec", r.maxOpsPerSec());
            putRate(o, "medianRatioTo" + capitalised(Headline.BASELINE), r.medianRatioToBaseline());
            ObjectNode to = o.putObject("medianRatioTo");
            r.medianRatioTo().forEach(to::put);
        }
        ArrayNode cold = root.putArray("cold");
        run.cold().forEach(r -> cold.add(MAPPER.valueToTree(r)));
        ArrayNode open = root.putArray("open");
        for (OpenResult r : run.open()) {
            ObjectNode o = MAPPER.valueToTree(r);
            o.remove("memory");
            o.put("filterBytesMapped", r.memory().filterBytesMapped());
            o.put("indexHeapBytes", r.memory().indexHeapBytes());
            o.put("nativeTableBytes", r.memory().nativeTableBytes());
            open.add(o);
        }
        ArrayNode close = root.putArray("close");
        for (CloseResult r : run.closes()) {
            ObjectNode o = close.addObject();
            o.put("engine", r.engine());
            o.put("round", r.round());
            o.put("after", r.after().cliName());
            o.put("millis", r.millis());
        }
        ArrayNode closeSummary = root.putArray("closeSummary");
        for (CloseSummary s : CloseSummary.of(run.closes())) {
            ObjectNode o = closeSummary.addObject();
            o.put("engine", s.engine());
            o.put("after", s.after().cliName());
            o.put("rounds", s.rounds());
            o.put("medianMillis", s.medianMillis());
            o.put("maxMillis", s.maxMillis());
        }
        ArrayNode loads = root.putArray("load");
        for (LoadCost l : run.filters()) {
            ObjectNode o = loads.addObject();
            o.put("engine", l.engine());
            o.put("round", l.round());
            if (!Double.isNaN(l.bitsPerKey())) {
                o.put("filterBitsPerKey", l.bitsPerKey());
            }
            o.put("bytesWritten", l.bytesWritten());
            o.put("userBytes", l.userBytes());
            if (!Double.isNaN(l.writeAmplification())) {
                o.put("writeAmplification", l.writeAmplification());
            }
            o.put("bytesOnDisk", l.bytesOnDisk());
        }
        ObjectNode time = root.putObject("secondsSpent");
        for (TimeSpent t : run.time()) {
            ObjectNode o = time.putObject(t.engine());
            for (TimeSpent.Phase p : TimeSpent.Phase.values()) {
                o.put(p.name().toLowerCase(Locale.ROOT), t.seconds(p));
            }
            o.put("total", t.totalSeconds());
        }
        root.set("headline", headline(new Headline(run.results())));
        return root;
    }

    private static ObjectNode result(WorkloadResult r) {
        ObjectNode o = MAPPER.createObjectNode();
        EngineCounters c = r.counters();
        o.put("engine", r.engine());
        o.put("workload", r.workload().cliName());
        o.put("round", r.round());
        o.put("ops", r.ops());
        o.put("seconds", r.seconds());
        o.put("opsPerSec", r.opsPerSec());
        if (r.workload() == Workload.READWHILEWRITING) {
            o.put("writerOpsPerSec", r.writerOpsPerSec());
        } else {
            o.putNull("writerOpsPerSec");
        }
        o.put("p50Micros", r.p50Micros());
        o.put("p99Micros", r.p99Micros());
        o.put("p999Micros", r.p999Micros());
        o.put("found", r.found());
        o.put("dataBlockReadsPerOp", r.dataBlockReadsPerOp());
        o.put("filterFileReads", c.filterFileReads());
        o.put("filterFileReadsPerOp", r.filterFileReadsPerOp());
        o.put("tablesConsultedPerOp", r.tablesConsultedPerOp());
        o.put("diskAccessesSaved", r.diskAccessesSaved());
        o.put("diskAccessesSavedPerOp", r.diskAccessesSavedPerOp());
        o.put("filterPositives", c.filterPositives());
        o.put("filterTruePositives", c.filterTruePositives());
        putRate(o, "measuredFpr", r.measuredFpr());
        o.put("configuredFpr", c.configuredFpr());
        o.put("blockCacheHits", c.blockCacheHits());
        o.put("bytesRead", c.bytesRead());
        if (r.osIo().isPresent()) {
            o.put("osReadSyscalls", r.osIo().get().readSyscalls());
            o.put("osStorageReadBytes", r.osIo().get().storageReadBytes());
        } else {
            o.putNull("osReadSyscalls");
            o.putNull("osStorageReadBytes");
        }
        if (r.deviceIo().isPresent()) {
            o.put("deviceReads", r.deviceIo().get().reads());
            o.put("deviceReadBytes", r.deviceIo().get().bytes());
        } else {
            o.putNull("deviceReads");
            o.putNull("deviceReadBytes");
        }
        if (!c.kept()) {
            for (String counter : NOT_KEPT) {
                o.putNull(counter);
            }
        }
        return o;
    }

    /** The fields written as null for an engine that keeps no table or filter counters. */
    private static final List<String> NOT_KEPT = List.of("dataBlockReadsPerOp", "filterFileReads",
            "filterFileReadsPerOp", "tablesConsultedPerOp", "diskAccessesSaved", "diskAccessesSavedPerOp",
            "filterPositives", "filterTruePositives", "measuredFpr", "configuredFpr", "blockCacheHits", "bytesRead");

    private static ObjectNode headline(Headline h) {
        ObjectNode o = MAPPER.createObjectNode();
        ObjectNode saved = o.putObject("diskAccessesSaved");
        ObjectNode missing = o.putObject("readsPerMissingLookup");
        for (String e : h.engines()) {
            if (h.keepsCounters(e)) {
                saved.put(e, h.diskAccessesSaved(e));
            }
            h.readsPerMissingLookup(e).ifPresent(v -> missing.put(e, v));
        }
        ObjectNode ratios = o.putObject("opsPerSecRatioTo" + capitalised(Headline.BASELINE));
        h.ratios().forEach((engine, row) -> {
            ObjectNode e = ratios.putObject(engine);
            row.forEach((w, v) -> e.put(w.cliName(), v));
        });
        return o;
    }

    private static void putRate(ObjectNode o, String field, double value) {
        if (Double.isNaN(value)) {
            o.putNull(field);
        } else {
            o.put(field, value);
        }
    }

    private static String capitalised(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
