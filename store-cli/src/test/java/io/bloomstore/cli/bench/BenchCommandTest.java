package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

/** The command end to end on the simulated engines and RocksDB: console, JSON and HTML outputs. */
class BenchCommandTest {
    private static final List<String> ENGINES = List.of("sim", "sim-nofilter", RocksDbEngine.NAME);

    @TempDir
    Path dir;

    private static EngineFactory factory() {
        return SimulatedEngine.factory().register(RocksDbEngine.NAME, RocksDbEngine::new);
    }

    private String run(String... args) {
        return run(factory(), args);
    }

    private String run(EngineFactory engines, String... args) {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new BenchCommand(engines));
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        int code = cmd.execute(args);
        assertEquals(0, code, out.toString());
        return out.toString();
    }

    @Test
    void writesCompleteJsonAndAWellFormedReport() throws Exception {
        Path json = dir.resolve("bench.json");
        Path html = dir.resolve("bench.html");
        Path data = dir.resolve("data");
        String console = run("--keys", "5000", "--reads", "2000", "--memtable-mb", "1", "--no-progress",
                "--cold-ops", "0", "--data", data.toString(), "--json", json.toString(), "--report", html.toString());
        assertTrue(console.contains("readmissing") && console.contains("Throughput ratio to rocksdb"), console);
        assertFalse(Files.exists(data.resolve("sim")), "stores are removed without --keep");

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        JsonNode results = root.get("results");
        long defaults = Arrays.stream(Workload.values()).filter(Workload::isDefault).count();
        assertEquals(ENGINES.size() * defaults, results.size());
        Set<String> seen = new HashSet<>();
        for (JsonNode r : results) {
            for (String field : List.of("engine", "workload", "ops", "opsPerSec", "p50Micros", "p99Micros",
                    "p999Micros", "dataBlockReadsPerOp", "diskAccessesSaved", "measuredFpr", "configuredFpr",
                    "osReadSyscalls", "round", "writerOpsPerSec", "diskAccessesSavedPerOp", "filterFileReads")) {
                assertTrue(r.has(field), "result lacks " + field + ": " + r);
            }
            assertTrue(r.get("ops").asLong() > 0 && r.get("opsPerSec").asDouble() > 0, r.toString());
            seen.add(r.get("engine").asText() + "/" + r.get("workload").asText());
        }
        assertEquals(results.size(), seen.size(), "one result per engine and workload");
        assertEquals(5000, root.at("/config/keys").asInt());
        assertTrue(root.at("/machine/cores").asInt() > 0 && root.at("/machine/jvm").isTextual()
                && root.at("/machine/os").isTextual());
        // The bench's collections before each workload must not shrink the heap (HeapSizing).
        assertEquals("heap kept committed across the bench's collections (MaxHeapFreeRatio 100)",
                root.at("/machine/heapSizing").asText());
        assertTrue(root.at("/headline/opsPerSecRatioToRocksdb/sim/readmissing").isNumber());
        assertTrue(root.at("/headline/readsPerMissingLookup/sim-nofilter").asDouble() >= 1);
        JsonNode closes = root.get("closeSummary");
        long writing = Arrays.stream(Workload.values()).filter(w -> w.isDefault() && w.writes()).count();
        assertEquals(4, writing, "fillseq, fillrandom, updaterandom, readwhilewriting");
        assertEquals(ENGINES.size() * writing, closes.size(), "a close after each writing workload per engine: " + closes);
        for (JsonNode c : closes) {
            assertTrue(c.get("medianMillis").asDouble() >= 0
                    && Workload.byCliName(c.get("after").asText()).writes(), c.toString());
        }
        assertEquals(ENGINES.size() * writing, root.get("close").size());
        assertTrue(console.contains("Close right after writes"), console);

        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(html.toFile());
        NodeList sections = doc.getElementsByTagName("section");
        Set<String> charts = new HashSet<>();
        for (int i = 0; i < sections.getLength(); i++) {
            Element s = (Element) sections.item(i);
            if (s.getAttribute("class").equals("chart")) {
                assertEquals(1, s.getElementsByTagName("svg").getLength(), "one chart in " + s.getAttribute("id"));
                charts.add(s.getAttribute("id"));
            }
        }
        Set<String> expected = new HashSet<>(Set.of("throughput", "disk-reads", "fpr", "saved"));
        Arrays.stream(Workload.values()).filter(Workload::isDefault).forEach(w -> expected.add("workload-" + w.cliName()));
        assertEquals(expected, charts, "the four charts, then one per workload");
        Element readmissing = doc.getElementById("workload-readmissing");
        for (String engine : ENGINES) {
            assertTrue(readmissing == null || readmissing.getTextContent().contains(engine), engine);
        }
        String text = Files.readString(html);
        assertFalse(text.contains("http://") && text.replace("http://www.w3.org/", "").contains("http://"),
                "the report fetches nothing");
        assertFalse(text.contains("<script"), "the report runs no script");
    }

    /**
     * Output to a file or pipe (as under the build: no console): without --no-progress the run draws no
     * progress-bar frame on standard error, where the bars would go.
     */
    @Test
    void drawsNoProgressBarsWithoutATerminal() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        String console;
        try {
            console = run("--engines", "sim", "--workloads", "fillrandom,readrandom", "--keys", "20000", "--reads",
                    "20000", "--cold-ops", "0", "--warmup-keys", "1000", "--data", dir.resolve("p").toString());
        } finally {
            System.setErr(original);
        }
        String written = err.toString(StandardCharsets.UTF_8);
        assertFalse(written.contains("\r") || written.contains("sim fillrandom"), "progress frames: " + written);
        assertFalse(console.contains("\r"), console);
        assertTrue(console.contains("readrandom"), console);
    }

    @Test
    void keepLeavesTheStoresAndRefusesToReuseThem() {
        Path data = dir.resolve("kept");
        run("--engines", RocksDbEngine.NAME, "--workloads", "readrandom", "--keys", "1000", "--reads", "100",
                "--no-progress", "--data", data.toString(), "--keep");
        assertTrue(Files.isDirectory(data.resolve(RocksDbEngine.NAME)));
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new BenchCommand(factory()));
        cmd.setErr(new PrintWriter(err));
        int code = cmd.execute("--engines", RocksDbEngine.NAME, "--keys", "1000", "--reads", "100", "--no-progress",
                "--data", data.toString());
        assertEquals(2, code, err.toString());
    }

    @Test
    void rejectsUnknownEnginesAndWorkloads() {
        for (String[] args : List.of(new String[] {"--engines", "nosuch"}, new String[] {"--workloads", "nosuch"},
                new String[] {"--compression", "zip"}, new String[] {"--keys", "0"},
                new String[] {"--distribution", "pareto"}, new String[] {"--repeat", "0"},
                new String[] {"--cold-ops", "-1"}, new String[] {"--writer-rate", "-5"},
                new String[] {"--writer-rate", "NaN"}, new String[] {"--wal-buffer", "-1"},
                new String[] {"--wal-buffer", "1048577"})) {
            StringWriter err = new StringWriter();
            CommandLine cmd = new CommandLine(new BenchCommand(factory()));
            cmd.setErr(new PrintWriter(err));
            assertEquals(2, cmd.execute(args), String.join(" ", args));
            assertTrue(err.toString().contains("nosuch") || err.toString().length() > 0);
        }
    }

    @Test
    void repeatedRunsSummariseAndChildJvmsMeasureColdStartAndOpen() throws Exception {
        Path json = dir.resolve("repeat.json");
        Path html = dir.resolve("repeat.html");
        String console = run("--engines", "sim," + RocksDbEngine.NAME, "--workloads", "fillrandom,readrandom",
                "--keys", "3000", "--reads", "1000", "--memtable-mb", "1", "--repeat", "2", "--cold-ops", "1000",
                "--warmup-keys", "0", "--no-progress", "--data", dir.resolve("d").toString(), "--json", json.toString(),
                "--report", html.toString());
        assertTrue(console.contains("Summary over 2 rounds") && console.contains("Cold start"), console);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, root.at("/config/repeat").asInt());
        assertTrue(root.at("/config/rocksdbStatistics").asText().contains("histograms ignored"));
        assertEquals(2 * 2 * 2, root.get("results").size());
        JsonNode summary = root.get("summary");
        assertEquals(2 * 2, summary.size());
        for (JsonNode row : summary) {
            assertEquals(2, row.get("rounds").asInt());
            assertTrue(row.get("minOpsPerSec").asDouble() <= row.get("medianOpsPerSec").asDouble()
                    && row.get("medianOpsPerSec").asDouble() <= row.get("maxOpsPerSec").asDouble(), row.toString());
            assertTrue(row.get("medianRatioToRocksdb").asDouble() > 0, row.toString());
            String other = row.get("engine").asText().equals("sim") ? RocksDbEngine.NAME : "sim";
            assertEquals(1, row.get("medianRatioTo").size(), "a ratio to the one other engine: " + row);
            assertTrue(row.get("medianRatioTo").get(other).asDouble() > 0, row.toString());
            if (other.equals(RocksDbEngine.NAME)) {
                assertEquals(row.get("medianRatioToRocksdb").asDouble(), row.get("medianRatioTo").get(other).asDouble(),
                        1e-12, row.toString());
            }
        }
        JsonNode cold = root.get("cold");
        assertEquals(2, cold.size(), "one cold probe per round for the engine a child JVM can create");
        for (JsonNode c : cold) {
            assertEquals(RocksDbEngine.NAME, c.get("engine").asText());
            assertTrue(c.get("fillOpsPerSec").asDouble() > 0 && c.get("readOpsPerSec").asDouble() > 0
                    && c.get("startupMillis").asDouble() > 0, c.toString());
            // The compilers' time is read from /proc on Linux (-1 elsewhere): never more than the whole process's.
            for (String phase : new String[] {"fill", "read"}) {
                double jit = c.get(phase + "JitCpuMillis").asDouble();
                assertTrue(jit == -1 || (jit >= 0 && jit <= c.get(phase + "CpuMillis").asDouble() + 20), c.toString());
            }
        }
        assertTrue(console.contains("cpu ms p/t/jit"), console);
        assertTrue(Files.readString(html).contains("id=\"cold\""));
        JsonNode spent = root.at("/secondsSpent/" + RocksDbEngine.NAME);
        assertTrue(spent.get("cold_probe").asDouble() > 0 && spent.get("measured").asDouble() > 0
                && spent.get("total").asDouble() >= spent.get("measured").asDouble(), spent.toString());
    }

    @Test
    void openWorkloadReopensEachStoreInAChildJvm() throws Exception {
        Path json = dir.resolve("open.json");
        run(EngineFactory.standard(), "--engines", "bloomstore,rocksdb", "--workloads", "open", "--keys", "20000", "--memtable-mb", "1",
                "--cold-ops", "0", "--warmup-keys", "0", "--no-progress", "--data", dir.resolve("o").toString(),
                "--json", json.toString());
        JsonNode open = new ObjectMapper().readTree(json.toFile()).get("open");
        assertEquals(2, open.size());
        for (JsonNode o : open) {
            assertEquals(20000, o.get("keys").asInt());
            assertTrue(o.get("openMillis").asDouble() > 0 && o.get("reopenMillis").asDouble() > 0
                    && o.get("closeMillis").asDouble() > 0
                    && o.get("heapAfterOpenBytes").asLong() > 0
                    && o.get("dataBytesOnDisk").asLong() > 20000L * 16, o.toString());
            assertEquals(100_000, o.get("reads").asLong());
        }
        JsonNode bloom = open.get(0);
        assertEquals("bloomstore", bloom.get("engine").asText());
        // ribbon, 9-bit fingerprints: at least one slot per key, so 9 bits per key or more
        assertTrue(bloom.get("filterBytesMapped").asLong() >= 20000L * 9 / 8, "about 9 bits per key mapped");
        assertTrue(bloom.get("indexHeapBytes").asLong() > 0);
        assertTrue(open.get(1).get("nativeTableBytes").asLong() > 0, "RocksDB's table readers hold native memory");
    }
}
