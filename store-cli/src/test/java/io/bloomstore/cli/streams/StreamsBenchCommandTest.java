package io.bloomstore.cli.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bloomstore.cli.CliRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bloomstore bench-streams} end to end on small inputs: both engines, both topologies,
 * console and JSON, and the restore measurement. The command itself checks each run's output
 * (dedup emits exactly the distinct ids), so a pass also means both engines computed it right.
 */
class StreamsBenchCommandTest {
    @TempDir
    Path dir;

    @Test
    void runsBothEnginesAndWritesJson() throws Exception {
        Path json = dir.resolve("streams.json");
        Path data = dir.resolve("data");
        CliRunner.Result r = CliRunner.run("bench-streams", "--events", "3000", "--words", "800", "--repeat", "2",
                "--warmup-events", "500", "--data", data.toString(), "--json", json.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("dedup") && r.out().contains("wordcount") && r.out().contains("records/s"), r.out());
        assertFalse(Files.exists(data), "the run created --data, and removes it with its state stores");

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(8, root.get("runs").size(), "2 workloads x 2 engines x 2 rounds");
        for (JsonNode run : root.get("runs")) {
            assertTrue(run.get("eventsPerSecond").asDouble() > 0, run.toString());
            assertTrue(run.get("lookups").asLong() > 0, "the engine's own counters were read: " + run);
        }
        JsonNode dedup = root.at("/medians/dedup");
        assertTrue(dedup.get("ratio").asDouble() > 0, dedup.toString());
        assertTrue(root.at("/restore/bloomstoreRecordsPerSecond").asDouble() > 0
                && root.at("/restore/rocksdbRecordsPerSecond").asDouble() > 0, root.get("restore").toString());
    }

    @Test
    void anExistingDataDirectoryKeepsWhatItHeld() throws Exception {
        Path data = Files.createDirectories(dir.resolve("mine"));
        Files.writeString(data.resolve("notes.txt"), "not the bench's");
        Files.createDirectories(data.resolve("project"));
        CliRunner.Result r = CliRunner.run("bench-streams", "--events", "500", "--words", "200", "--repeat", "1",
                "--warmup-events", "0", "--no-restore", "--data", data.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        try (java.util.stream.Stream<Path> left = Files.list(data)) {
            assertEquals(java.util.Set.of("notes.txt", "project"),
                    left.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet()));
        }
        assertEquals("not the bench's", Files.readString(data.resolve("notes.txt")));

        Path file = dir.resolve("a-file");
        Files.writeString(file, "x");
        CliRunner.Result notDir = CliRunner.run("bench-streams", "--events", "500", "--data", file.toString());
        assertEquals(2, notDir.exitCode(), notDir.err());
        assertTrue(notDir.err().contains("is not a directory"), notDir.err());
        assertEquals("x", Files.readString(file));
    }

    @Test
    void withoutKafkasLibrariesItSaysWhichJarIsMissing() throws Exception {
        StreamsBenchCommand.requireKafka(StreamsBenchCommandTest.class.getClassLoader());
        try (java.net.URLClassLoader bare = new java.net.URLClassLoader(new java.net.URL[0], null)) {
            io.bloomstore.cli.CliException e = org.junit.jupiter.api.Assertions.assertThrows(
                    io.bloomstore.cli.CliException.class, () -> StreamsBenchCommand.requireKafka(bare));
            assertEquals(io.bloomstore.cli.ExitCodes.IO, e.exitCode());
            assertTrue(e.getMessage().contains("bloomstore-kafka.jar beside bloomstore.jar"), e.getMessage());
        }
    }

    @Test
    void badArgumentsAreUsageErrors() {
        CliRunner.Result r = CliRunner.run("bench-streams", "--workloads", "joins");
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().contains("unknown workload 'joins'"), r.err());
        assertEquals(2, CliRunner.run("bench-streams", "--unique-fraction", "0").exitCode());
        CliRunner.Result app = CliRunner.run("bench-streams", "--broker", "--workloads", "eos-crash",
                "--crash-applications", "dedup,joins");
        assertEquals(2, app.exitCode(), app.err());
        assertTrue(app.err().contains("unknown --crash-applications 'joins'"), app.err());
        CliRunner.Result events = CliRunner.run("bench-streams", "--broker", "--workloads", "eos-crash",
                "--crash-events", "1");
        assertEquals(2, events.exitCode(), events.err());
        assertTrue(events.err().contains("--crash-events must be at least 2"), events.err());
    }
}
