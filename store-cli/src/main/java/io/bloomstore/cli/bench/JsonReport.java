package io.bloomstore.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Writes a run as JSON ({@code --json FILE}): the configuration, the machine, a
 * {@code results} array with one object per engine and workload, and the headline.
 * Rates that are undefined (no filter checks, no OS counters) are written as {@code null}.
 *
 * <pre>
 * { "config": {...}, "machine": {cores, jvm, os, arch, maxHeapBytes}, "timestamp": ISO-8601,
 *   "results": [ { engine, workload, ops, seconds, opsPerSec, p50Micros, p99Micros, p999Micros,
 *                  found, dataBlockReadsPerOp, tablesConsultedPerOp, diskAccessesSaved,
 *                  filterPositives, filterTruePositives, measuredFpr, configuredFpr,
 *                  blockCacheHits, bytesRead, osReadSyscalls, osStorageReadBytes } ],
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

    public static void write(Path file, BenchConfig config, MachineInfo machine, List<WorkloadResult> results)
            throws IOException {
        MAPPER.writeValue(file.toFile(), toJson(config, machine, results));
    }

    static ObjectNode toJson(BenchConfig config, MachineInfo machine, List<WorkloadResult> results) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("benchmark", "bloomstore bench");
        root.put("timestamp", Instant.now().toString());
        root.set("config", MAPPER.valueToTree(config));
        ((ObjectNode) root.get("config")).put("theoreticalFpr", config.theoreticalFpr());
        root.set("machine", MAPPER.valueToTree(machine));
        ArrayNode array = root.putArray("results");
        for (WorkloadResult r : results) {
            array.add(result(r));
        }
        root.set("headline", headline(new Headline(results)));
        return root;
    }

    private static ObjectNode result(WorkloadResult r) {
        ObjectNode o = MAPPER.createObjectNode();
        EngineCounters c = r.counters();
        o.put("engine", r.engine());
        o.put("workload", r.workload().cliName());
        o.put("ops", r.ops());
        o.put("seconds", r.seconds());
        o.put("opsPerSec", r.opsPerSec());
        o.put("p50Micros", r.p50Micros());
        o.put("p99Micros", r.p99Micros());
        o.put("p999Micros", r.p999Micros());
        o.put("found", r.found());
        o.put("dataBlockReadsPerOp", r.dataBlockReadsPerOp());
        o.put("tablesConsultedPerOp", r.tablesConsultedPerOp());
        o.put("diskAccessesSaved", r.diskAccessesSaved());
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
        return o;
    }

    private static ObjectNode headline(Headline h) {
        ObjectNode o = MAPPER.createObjectNode();
        ObjectNode saved = o.putObject("diskAccessesSaved");
        ObjectNode missing = o.putObject("readsPerMissingLookup");
        for (String e : h.engines()) {
            saved.put(e, h.diskAccessesSaved(e));
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
