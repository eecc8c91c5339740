package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The real {@code bloomstore.jar} under plain {@code java -jar}, no JVM flags: the manifest
 * must carry what Chronicle Bytes needs, and the JMH benchmark list must be packed.
 * Runs in {@code verify} (failsafe), after the jar is shaded in {@code package}.
 */
class BloomstoreJarIT {
    private static final Path JAR = Path.of(System.getProperty("bloomstore.jar", "target/bloomstore.jar"));

    @TempDir
    Path dir;

    @Test
    void filterPlan() throws Exception {
        Run r = run("filter", "plan", "--n", "1000", "--fpr", "0.01");
        assertEquals(0, r.code, r.err);
        assertTrue(r.out.contains("k (probes)     7"), r.out);
        JsonNode j = new ObjectMapper().readTree(run("filter", "plan", "--n", "1000", "--fpr", "0.01", "--json").out);
        assertEquals(9586, j.get("m").asLong());
    }

    @Test
    void mappedFilterUnderPlainJavaJar() throws Exception {
        Path keys = dir.resolve("keys.txt");
        Files.write(keys, List.of("alpha", "beta", "gamma"), StandardCharsets.UTF_8);
        Path f = dir.resolve("f.bsf");
        Run created = run("filter", "create", "--from", keys.toString(), "--out", f.toString());
        assertEquals(0, created.code, created.err);
        Run check = run("filter", "check", f.toString(), "beta", "delta");
        assertEquals(ExitCodes.NOT_FOUND, check.code, check.err);
        assertEquals("maybe  beta\nabsent delta\n", check.out);
        assertEquals("", check.err, "no warnings from the JVM or Chronicle");
    }

    @Test
    void errorsUnderPlainJavaJar() throws Exception {
        Run r = run("filter", "info", dir.resolve("missing.bsf").toString());
        assertEquals(ExitCodes.IO, r.code);
        assertEquals("bloomstore: no such file: " + dir.resolve("missing.bsf") + "\n", r.err);
    }

    @Test
    void storeCommandsUnderPlainJavaJar() throws Exception {
        String data = dir.resolve("db").toString();
        assertEquals(0, run("--data", data, "put", "k1", "v1").code);
        assertEquals(0, run("--data", data, "put", "k2", "v2").code);
        // A put keeps the small WAL as it is: the flush makes the table whose filter the get maps.
        assertEquals(0, run("--data", data, "flush").code);
        Run get = run("--data", data, "get", "k1");
        assertEquals(0, get.code, get.err);
        assertEquals("v1\n", get.out);
        assertEquals("", get.err, "no warnings from the JVM or Chronicle with mapped filters");
        assertEquals(ExitCodes.NOT_FOUND, run("--data", data, "get", "k3").code);
        assertEquals("k1\tv1\nk2\tv2\n", run("--data", data, "scan").out);
        JsonNode stats = new ObjectMapper().readTree(run("--data", data, "stats", "--json").out);
        assertTrue(stats.get("levels").get(0).get("files").asInt() >= 1, stats.toString());
    }

    @Test
    void aStoreOpenInAnotherProcessIsReadLiveAndLockedForWrites() throws Exception {
        Path data = dir.resolve("locked");
        try (io.bloomstore.core.Store store = io.bloomstore.core.Store.open(data)) {
            store.put(new byte[] {'k'}, new byte[] {'v'}, io.bloomstore.core.WriteOptions.SYNC);
            Run get = run("--data", data.toString(), "get", "k");
            assertEquals(0, get.code, get.err);
            assertEquals("v\n", get.out);
            assertTrue(get.err.contains("held open by another process"), get.err);
            assertEquals(1, get.err.lines().count(), get.err);
            Run r = run("--data", data.toString(), "put", "k", "w");
            assertEquals(ExitCodes.LOCKED, r.code, r.err);
            assertTrue(r.err.startsWith("bloomstore: store is already open"), r.err);
            assertEquals(1, r.err.lines().count(), r.err);
        }
        assertEquals("v\n", run("--data", data.toString(), "get", "k").out);
    }

    @Test
    void benchmarksArePacked() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertTrue(jar.getEntry("META-INF/BenchmarkList") != null, "JMH benchmark list in the jar");
        }
        Run list = run("jmh", "-l");
        assertEquals(0, list.code, list.err);
        assertTrue(list.out.contains("io.bloomstore.cli.jmh.FilterQueryBenchmark.mightContain"), list.out);
        assertTrue(list.out.contains("io.bloomstore.cli.jmh.FilterAddBenchmark.add"), list.out);
    }

    /**
     * The peers under plain {@code java -jar} (LMDB's native library and buffer access need no flag
     * the manifest does not grant), with the output to files, as {@code bench > log} sends it: no
     * progress-bar frame on standard error, and every engine's rows and ratios on standard output.
     */
    @Test
    void benchWithEveryPeerToAFileDrawsNoProgressBars() throws Exception {
        Run r = run("bench", "--engines", "bloomstore,lmdb,mvstore,je,xodus", "--workloads",
                "fillrandom,readrandom,readmissing,seekrandom", "--keys", "3000", "--reads", "1000", "--cold-ops", "0",
                "--warmup-keys", "0", "--data", dir.resolve("peers").toString());
        assertEquals(0, r.code, r.err);
        assertFalse(r.err.contains("\r") || r.out.contains("\r"), "progress frames: " + r.err);
        for (String engine : List.of("lmdb", "mvstore", "je", "xodus")) {
            assertTrue(r.out.contains(engine + " "), engine + " in " + r.out);
        }
        assertTrue(r.out.contains("bloomstore / each engine"), r.out);
    }

    /** A load of a file large enough for a progress bar, to a file: none drawn. */
    @Test
    void loadToAFileDrawsNoProgressBar() throws Exception {
        Path lines = dir.resolve("lines.tsv");
        StringBuilder sb = new StringBuilder();
        String value = "v".repeat(90);
        for (int i = 0; i < 200_000; i++) {
            sb.append("key").append(i).append('\t').append(value).append('\n');
        }
        Files.writeString(lines, sb);
        assertTrue(Files.size(lines) >= 16 << 20, "at least the size that draws a bar");
        Run r = run("--data", dir.resolve("loaded").toString(), "load", lines.toString());
        assertEquals(0, r.code, r.err);
        assertFalse(r.err.contains("\r") || r.err.contains("Loading"), "progress frames: " + r.err);
    }

    /** Kafka's own warnings (temporary state directory, exception handler) stay out of the output. */
    @Test
    void benchStreamsPrintsOnlyItsResults() throws Exception {
        Run r = run("bench-streams", "--events", "2000", "--words", "800", "--vocabulary", "100", "--repeat", "1",
                "--warmup-events", "0", "--no-restore");
        assertEquals(0, r.code, r.err);
        assertEquals("", r.err);
        assertTrue(r.out.contains("dedup") && r.out.contains("wordcount"), r.out);
    }

    @Test
    void versionAndCompletionUnderPlainJavaJar() throws Exception {
        Run version = run("--version");
        assertEquals(0, version.code, version.err);
        assertTrue(version.out.startsWith("BloomStore "), version.out);
        assertTrue(!version.out.contains("${"), "an unfiltered version resource: " + version.out);
        Run completion = run("completion");
        assertEquals(0, completion.code, completion.err);
        assertTrue(completion.out.contains("complete -F _complete_bloomstore"), completion.out);
    }

    private record Run(int code, String out, String err) {
    }

    @Test
    void kafkaLibrariesComeFromTheJarBesideIt() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertEquals("bloomstore-kafka.jar bloomstore-peers.jar",
                    jar.getManifest().getMainAttributes().getValue("Class-Path"));
            assertTrue(jar.getEntry("io/bloomstore/cli/streams/StreamsBenchCommand.class") != null);
            assertTrue(jar.getEntry("org/apache/kafka/streams/KafkaStreams.class") == null,
                    "Kafka's classes are in bloomstore-kafka.jar, not in the jar every command starts from");
            assertTrue(jar.getEntry("com/sleepycat/je/Environment.class") == null,
                    "the peers' libraries are in bloomstore-peers.jar");
            assertTrue(jar.size() < 12_000, "entries of bloomstore.jar: " + jar.size());
        }
        try (JarFile peers = new JarFile(JAR.resolveSibling("bloomstore-peers.jar").toFile())) {
            assertTrue(peers.getEntry("org/lmdbjava/Env.class") != null);
            assertTrue(peers.getEntry("io/bloomstore/cli/Main.class") == null, "no CLI classes twice");
        }
        try (JarFile kafka = new JarFile(JAR.resolveSibling("bloomstore-kafka.jar").toFile())) {
            assertTrue(kafka.getEntry("org/apache/kafka/streams/KafkaStreams.class") != null);
            assertTrue(kafka.getEntry("io/bloomstore/cli/Main.class") == null, "no CLI classes twice");
        }
    }

    @Test
    void theJarAloneRunsEverythingButTheKafkaBenchAndThePeers() throws Exception {
        Path alone = Files.createDirectories(dir.resolve("alone")).resolve("bloomstore.jar");
        Files.copy(JAR, alone);
        String data = dir.resolve("db").toString();
        assertEquals(0, runJar(alone, "--data", data, "put", "k1", "v1").code);
        Run get = runJar(alone, "--data", data, "get", "k1");
        assertEquals(0, get.code, get.err);
        assertEquals("v1\n", get.out);
        Run help = runJar(alone, "--help");
        assertEquals(0, help.code, help.err);
        assertTrue(help.out.contains("bench-streams"), help.out);
        Run streams = runJar(alone, "bench-streams", "--events", "100", "--repeat", "1");
        assertEquals(ExitCodes.IO, streams.code, streams.err);
        assertTrue(streams.err.startsWith("bloomstore: bench-streams needs Kafka's libraries: bloomstore-kafka.jar"),
                streams.err);
        assertEquals(1, streams.err.lines().count(), streams.err);
        Run peers = runJar(alone, "bench", "--engines", "bloomstore,xodus", "--keys", "1000", "--cold-ops", "0");
        assertEquals(ExitCodes.IO, peers.code, peers.err);
        assertTrue(peers.err.startsWith("bloomstore: engine xodus needs the peers' libraries: bloomstore-peers.jar"),
                peers.err);
        assertEquals(1, peers.err.lines().count(), peers.err);
    }

    private Run run(String... args) throws IOException, InterruptedException {
        return runJar(JAR, args);
    }

    private Run runJar(Path jar, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "bloomstore did not finish: " + command);
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
