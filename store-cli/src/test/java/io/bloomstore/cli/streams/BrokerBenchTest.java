package io.bloomstore.cli.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bloomstore.cli.CliRunner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bloomstore bench-streams --broker} once, CI-sized (a KRaft broker on loopback, 2,000
 * records per application, one round): every application on both engines yields end-to-end
 * events/s, a store time per lookup from Kafka's own metrics, and a restore after the state
 * directory is wiped. The command fails a run whose stores are not the engine's (by the metrics
 * scope) or whose instance did not process every input record, so a pass means both engines ran.
 * About 40–60 s on two shared cores, most of it broker and instance start-up.
 */
class BrokerBenchTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void everyApplicationYieldsFiguresForBothEngines() throws Exception {
        Path json = dir.resolve("broker.json");
        Path data = dir.resolve("data");
        CliRunner.Result r = CliRunner.run("bench-streams", "--broker", "--broker-events", "2000", "--repeat", "1",
                "--partitions", "1", "--data", data.toString(), "--json", json.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertFalse(r.out().contains("Formatting metadata"), "the broker's start-up prints stay out: " + r.out());
        assertFalse(Files.exists(data), "state directories are removed after the run");

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(6, root.get("runs").size(), "3 applications x 2 engines x 1 round");
        for (JsonNode run : root.get("runs")) {
            assertEquals(2000, run.get("events").asLong(), run.toString());
            assertTrue(run.get("eventsPerSecond").asDouble() > 0, run.toString());
            assertTrue(run.at("/storeNanosPerOp/put").asDouble() > 0, "Kafka's put latency was read: " + run);
            assertTrue(run.get("restoredRecords").asLong() > 0 && run.get("restoreMillis").asDouble() > 0,
                    "a restore after the wipe: " + run);
        }
        for (String app : new String[] {"dedup", "windowed-count", "join"}) {
            JsonNode m = root.at("/medians/" + app);
            assertTrue(m.get("bloomstoreLookupNanos").asDouble() > 0 && m.get("rocksdbLookupNanos").asDouble() > 0,
                    app + ": " + m);
            assertTrue(m.get("endToEndRatio").asDouble() > 0 && m.get("restoreSpeedRatio").asDouble() > 0, app + ": " + m);
        }
    }

    /**
     * {@code --footprint}, CI-sized: each engine's instance runs once more in a JVM of its own and
     * reports its threads, resident set and heap besides its events/s, none of them the broker's.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theFootprintIsAnInstancesOwn() throws Exception {
        Path json = dir.resolve("footprint.json");
        CliRunner.Result r = CliRunner.run("bench-streams", "--broker", "--footprint", "--workloads", "windowed-count",
                "--broker-events", "2000", "--repeat", "1", "--partitions", "2", "--no-restore",
                "--data", dir.resolve("data").toString(), "--json", json.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("Instance footprint"), r.out());
        JsonNode footprint = new ObjectMapper().readTree(json.toFile()).get("footprint");
        assertEquals(2, footprint.get("runs").size(), "one instance per engine: " + footprint);
        for (JsonNode run : footprint.get("runs")) {
            assertTrue(run.get("eventsPerSecond").asDouble() > 0, run.toString());
            // A JVM with a Kafka Streams instance runs well over ten threads; the broker's would add dozens more.
            int threads = run.get("threads").asInt();
            assertTrue(threads > 10 && threads < 80, run.toString());
            assertTrue(run.get("residentMiB").asDouble() > 20 && run.get("heapMiB").asDouble() > 0, run.toString());
        }
        JsonNode m = footprint.at("/medians/windowed-count");
        assertTrue(m.get("residentRatio").asDouble() > 0 && m.get("endToEndRatio").asDouble() > 0, m.toString());
    }

    /**
     * {@code --workloads eos-crash}, CI-sized (20,000 records per application, one partition, one
     * round): for both applications and the three engine configurations, a child instance is killed
     * with SIGKILL at 60% of its outputs and resumed; every run's outputs must be exact. BloomStore's
     * transactional stores resume from their last commit, so they restore fewer records than Kafka's
     * RocksDB stores with the setting off, which are wiped and restore the changelog of everything
     * committed before the kill. About two minutes on two shared cores, so with {@code -Pstress}.
     */
    @Test
    @Tag("stress")
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void eosCrashResumesWithExactOutputs() throws Exception {
        Path json = dir.resolve("crash.json");
        CliRunner.Result r = CliRunner.run("bench-streams", "--broker", "--workloads", "eos-crash", "--crash-events",
                "20000", "--partitions", "1", "--repeat", "1", "--data", dir.resolve("data").toString(),
                "--json", json.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        JsonNode rows = new ObjectMapper().readTree(json.toFile()).get("eosCrash");
        assertEquals(6, rows.size(), "2 applications x 3 engine configurations: " + rows);
        Map<String, Long> restored = new HashMap<>();
        for (JsonNode row : rows) {
            assertTrue(row.get("outputsExact").asBoolean(), row.toString());
            assertTrue(row.get("resumeSeconds").asDouble() > 0, row.toString());
            double rebalancing = row.get("rebalancingAtSeconds").asDouble();
            double running = row.get("runningAtSeconds").asDouble();
            assertTrue(rebalancing > 0 && running >= rebalancing, "the resumed child's phases, in order: " + row);
            restored.put(row.get("application").asText() + "/" + row.get("engine").asText(),
                    row.get("restoredRecords").asLong());
        }
        for (String app : new String[] {"dedup", "windowed-count"}) {
            assertTrue(restored.get(app + "/bloomstore-tx") < restored.get(app + "/rocksdb-no-tx"),
                    app + ": BloomStore resumes from its last commit, a wiped store restores more: " + restored);
        }
    }
}
