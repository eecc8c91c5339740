package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.Compression;
import io.bloomstore.core.fs.UnsyncedFileSystem;

/**
 * The real {@code bloomstore.jar} in a shell limited to 512 open files ({@code ulimit -n 512}) on a
 * store of more than 3,000 tables: {@code get}, {@code scan}, {@code stats}, {@code verify} and
 * {@code compact} all work, because the CLI fits {@code maxOpenFiles} to the process's limit.
 * With filters it also needs the filter mappings to hold no descriptors, which is checked first.
 * Runs in {@code verify} (failsafe), after the jar is shaded in {@code package}.
 */
class OpenFilesLimitIT {
    private static final Path JAR = Path.of(System.getProperty("bloomstore.jar", "target/bloomstore.jar"));
    private static final int TABLES = 3_000;
    /** Tables are cut at 1 KiB and hold about nine entries of 100-byte values. */
    private static final int KEYS = TABLES * 10;

    @TempDir
    Path dir;

    @Test
    void cliWorksUnderUlimit512WithoutFilters() throws Exception {
        Path data = build("nofilter", null);
        runAll(data);
    }

    @Test
    void cliWorksUnderUlimit512WithFilters() throws Exception {
        Path data = build("bloom", FilterKind.BLOOM);
        long held;
        try (Store store = Store.open(data)) {
            held = filterDescriptors();
        }
        assertEquals(0, held, "descriptors held by the filter mappings of " + TABLES + "+ tables");
        runAll(data);
    }

    private void runAll(Path data) throws Exception {
        Run get = run(data, "get", "key000000012345");
        assertEquals(0, get.code, get.err);
        assertEquals(value(12345) + "\n", get.out);
        assertEquals(ExitCodes.NOT_FOUND, run(data, "get", "absent").code);
        Run scan = run(data, "scan");
        assertEquals(0, scan.code, scan.err);
        assertEquals(KEYS, scan.out.lines().count());
        Run stats = run(data, "stats", "--json");
        assertEquals(0, stats.code, stats.err);
        JsonNode levels = new ObjectMapper().readTree(stats.out).get("levels");
        int files = 0;
        for (JsonNode l : levels) {
            files += l.get("files").asInt();
        }
        assertTrue(files >= TABLES, "tables: " + files);
        Run verify = run(data, "verify");
        assertEquals(0, verify.code, verify.err + verify.out);
        Run compact = run(data, "compact");
        assertEquals(0, compact.code, compact.err);
        assertEquals(value(KEYS - 1) + "\n", run(data, "get", String.format("key%012d", KEYS - 1)).out);
    }

    /** A store of {@value #TABLES}+ tiny tables, built in this JVM without fsyncs. */
    private Path build(String name, FilterKind filter) throws IOException {
        Path data = dir.resolve(name);
        StoreOptions options = StoreOptions.builder().autoCompaction(false).targetFileBytes(1024).blockSize(256)
                .compression(Compression.NONE).filterKind(filter).maxOpenFiles(256).build();
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, data, options)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(String.format("key%012d", i).getBytes(StandardCharsets.UTF_8),
                        value(i).getBytes(StandardCharsets.UTF_8));
            }
            store.compact();
        }
        return data;
    }

    /** A value of about 100 printable bytes. */
    private static String value(int i) {
        return "value-" + i + "-" + "x".repeat(90);
    }

    private static long filterDescriptors() throws IOException {
        long n = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().endsWith(".filter")) {
                        n++;
                    }
                } catch (IOException e) {
                    // Closed while being read (the listing's own descriptor among them).
                }
            }
        }
        return n;
    }

    private record Run(int code, String out, String err) {
    }

    /** Runs the jar on {@code data} in a shell whose open-file limit is 512. */
    private Run run(Path data, String... args) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs bash for ulimit");
        List<String> command = new ArrayList<>(List.of("/bin/bash", "-c", "ulimit -n 512 && exec \"$0\" \"$@\"",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "--data", data.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "bloomstore did not finish: " + command);
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
