package io.bloomstore.cli.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/** {@code bloomstore filter plan|create|check|info}, run in-process: outputs, JSON, errors and exit codes. */
class FilterCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void planForARate() {
        Result r = CliRunner.run("filter", "plan", "--n", "1000", "--fpr", "0.01");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("bloom filter for 1,000 keys"), r.out());
        assertTrue(r.out().contains("m (bits)       9,586"), r.out());
        assertTrue(r.out().contains("k (probes)     7"), r.out());
        assertTrue(r.out().contains("expected FPR   1.00%"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void planJsonForTheSeedsExample() throws IOException {
        JsonNode j = json(CliRunner.run("filter", "plan", "--n", "1000", "--m", "8000", "--json"));
        assertEquals(1000, j.get("n").asLong());
        assertEquals(8000, j.get("m").asLong());
        assertEquals(6, j.get("k").asInt());
        assertEquals(0.0216, j.get("fpr").asDouble(), 0.0001);
        assertEquals(8.0, j.get("bitsPerKey").asDouble());
        assertEquals(1000, j.get("bytes").asLong());
        assertEquals("bloom", j.get("kind").asText());

        JsonNode perKey = json(CliRunner.run("filter", "plan", "--n", "1000", "--bits-per-key", "32", "--json"));
        assertEquals(32_000, perKey.get("m").asLong());
        assertTrue(perKey.get("fpr").asDouble() < 1e-6);

        JsonNode blocked = json(CliRunner.run("filter", "plan", "--n", "1000", "--fpr", "0.01", "--kind", "blocked", "--json"));
        assertEquals(0, blocked.get("m").asLong() % 512);
        assertTrue(blocked.get("fpr").asDouble() > 0.01);
    }

    @Test
    void planRejectsBadNumbers() {
        assertUsageError(CliRunner.run("filter", "plan", "--n", "lots", "--fpr", "0.01"), "Invalid value for option '--n'");
        assertUsageError(CliRunner.run("filter", "plan", "--n", "1000", "--fpr", "1.5"), "false-positive rate must be in (0, 1)");
        assertUsageError(CliRunner.run("filter", "plan", "--n", "0", "--fpr", "0.01"), "--n must be positive");
        assertUsageError(CliRunner.run("filter", "plan", "--n", "1000"), "Missing required argument");
        assertUsageError(CliRunner.run("filter", "plan", "--n", "1000", "--fpr", "0.01", "--m", "100"), "mutually exclusive");
        assertUsageError(CliRunner.run("filter", "plan", "--n", "10", "--fpr", "0.01", "--kind", "nope"), "unknown filter kind 'nope'");
        assertUsageError(CliRunner.run(), "missing command");
        assertUsageError(CliRunner.run("filter"), "missing command");
    }

    @Test
    void createCheckAndInfo() throws IOException {
        Path keys = keysFile("keys.txt", 5000);
        Path f = dir.resolve("keys.bsf");
        Result created = CliRunner.run("filter", "create", "--from", keys.toString(), "--out", f.toString(), "--fpr", "0.01");
        assertEquals(0, created.exitCode(), created.err());
        assertTrue(created.out().startsWith("wrote " + f + ": bloom filter, 5,000 keys, 47,926 bits (9.59 bits/key, k=7)"),
                created.out());

        Result present = CliRunner.run("filter", "check", f.toString(), "key-0", "key-4999", "key with spaces 7");
        assertEquals(0, present.exitCode(), present.err());
        assertEquals(List.of("maybe  key-0", "maybe  key-4999", "maybe  key with spaces 7"), present.out().lines().toList());

        Result mixed = CliRunner.runWithStdin("key-1\nnot-a-key\n", "filter", "check", f.toString(), "-");
        assertEquals(ExitCodes.NOT_FOUND, mixed.exitCode());
        assertEquals(List.of("maybe  key-1", "absent not-a-key"), mixed.out().lines().toList());

        Result info = CliRunner.run("filter", "info", f.toString());
        assertEquals(0, info.exitCode(), info.err());
        assertTrue(info.out().contains("bloom filter, format version 1"), info.out());
        assertTrue(info.out().contains("n (keys)       5,000"), info.out());
        assertTrue(info.out().contains("checksums      ok"), info.out());

        JsonNode j = json(CliRunner.run("filter", "info", f.toString(), "--json"));
        assertEquals("bloom", j.get("kind").asText());
        assertEquals("XXH3_64", j.get("hashStrategy").asText());
        assertEquals(5000, j.get("n").asLong());
        assertEquals(7, j.get("k").asInt());
        assertEquals(47_926, j.get("m").asLong());
        assertEquals(Files.size(f), j.get("fileBytes").asLong());
        assertEquals(0.01, j.get("expectedFpr").asDouble(), 0.0005);
    }

    @Test
    void createBlockedWithGivenN() throws IOException {
        Path keys = keysFile("keys.txt", 100);
        Path f = dir.resolve("b.bsf");
        Result r = CliRunner.run("filter", "create", "--from", keys.toString(), "--out", f.toString(), "--kind", "blocked",
                "--n", "10000", "--fpr", "0.001");
        assertEquals(0, r.exitCode(), r.err());
        JsonNode j = json(CliRunner.run("filter", "info", f.toString(), "--json"));
        assertEquals("blocked", j.get("kind").asText());
        assertEquals(100, j.get("n").asLong());
        assertTrue(j.get("m").asLong() >= 143_776, "sized for 10,000 keys: " + j.get("m"));
        Result check = CliRunner.run("filter", "check", f.toString(), "key-99");
        assertEquals(0, check.exitCode());
    }

    @Test
    void missingFile() {
        Path missing = dir.resolve("missing.bsf");
        assertError(CliRunner.run("filter", "check", missing.toString(), "k"), ExitCodes.IO, "bloomstore: no such file: " + missing);
        assertError(CliRunner.run("filter", "info", missing.toString()), ExitCodes.IO, "bloomstore: no such file: " + missing);
        assertError(CliRunner.run("filter", "create", "--from", missing.toString(), "--out", dir.resolve("o").toString()),
                ExitCodes.IO, "bloomstore: no such file: " + missing);
    }

    @Test
    void notAFilterFile() throws IOException {
        Path text = keysFile("keys.txt", 3);
        assertError(CliRunner.run("filter", "check", text.toString(), "k"), ExitCodes.FORMAT,
                "bloomstore: " + text + " is not a BloomStore filter file (no filter magic number at offset 0)");
    }

    @Test
    void corruptFile() throws IOException {
        Path f = filterFile();
        byte[] bytes = Files.readAllBytes(f);
        bytes[100] ^= 1;
        Files.write(f, bytes);
        Result r = CliRunner.run("filter", "info", f.toString());
        assertError(r, ExitCodes.CORRUPTION, "bloomstore: corruption in " + f + " at offset ");
        assertTrue(r.err().contains("payload CRC32C"), r.err());
        assertError(CliRunner.run("filter", "check", f.toString(), "k"), ExitCodes.CORRUPTION, "bloomstore: corruption in ");
    }

    @Test
    void otherFormatVersion() throws IOException {
        Path f = filterFile();
        byte[] bytes = Files.readAllBytes(f);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(4, (short) 3);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, 60);
        b.putInt(60, (int) crc.getValue());
        Files.write(f, bytes);
        // Version 2 is a filter set, which check reads too (FilterSetCommandsTest); 3 is from a later build.
        assertError(CliRunner.run("filter", "check", f.toString(), "k"), ExitCodes.FORMAT,
                "bloomstore: " + f + " is filter format version 3; this BloomStore reads version");
    }

    @Test
    void notUtf8Keys() throws IOException {
        Path bad = dir.resolve("bad.txt");
        Files.write(bad, new byte[] {'a', '\n', (byte) 0xC3, (byte) 0x28, '\n'});
        assertError(CliRunner.run("filter", "create", "--from", bad.toString(), "--out", dir.resolve("o.bsf").toString()),
                ExitCodes.FORMAT, "bloomstore: " + bad + " is not UTF-8 text");
    }

    @Test
    void verboseAddsTheStackTrace() throws IOException {
        Path text = keysFile("keys.txt", 3);
        Result quiet = CliRunner.run("filter", "check", text.toString(), "k");
        assertFalse(quiet.err().contains("\tat "), quiet.err());
        for (String[] args : new String[][] {{"--verbose", "filter", "check", text.toString(), "k"},
                {"filter", "check", "--verbose", text.toString(), "k"}}) {
            Result verbose = CliRunner.run(args);
            assertEquals(ExitCodes.FORMAT, verbose.exitCode());
            assertTrue(verbose.err().contains("NotAFilterFileException") && verbose.err().contains("\tat "), verbose.err());
        }
    }

    @Test
    void lineCountMatchesReadLine() throws IOException {
        Path p = dir.resolve("lines.txt");
        for (String content : new String[] {"", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "a\r\nb\r\n"}) {
            Files.writeString(p, content);
            long expected = Files.readAllLines(p).size();
            assertEquals(expected, FilterCreateCommand.countLines(p), "'" + content + "'");
        }
    }

    private Path filterFile() throws IOException {
        Path keys = keysFile("k.txt", 100);
        Path f = dir.resolve("f.bsf");
        assertEquals(0, CliRunner.run("filter", "create", "--from", keys.toString(), "--out", f.toString()).exitCode());
        return f;
    }

    private Path keysFile(String name, int n) throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lines.add(i % 10 == 7 ? "key with spaces " + i : "key-" + i);
        }
        Path p = dir.resolve(name);
        Files.write(p, lines, StandardCharsets.UTF_8);
        return p;
    }

    private static JsonNode json(Result r) throws IOException {
        assertEquals(0, r.exitCode(), r.err());
        JsonNode node = JSON.readTree(r.out());
        assertTrue(node.isObject(), r.out());
        return node;
    }

    private static void assertUsageError(Result r, String message) {
        assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
        assertEquals(1, r.errLines().size(), "one line on stderr: " + r.err());
        assertTrue(r.err().contains(message), r.err());
    }

    private static void assertError(Result r, int code, String prefix) {
        assertEquals(code, r.exitCode(), r.err());
        assertEquals(1, r.errLines().size(), "one line on stderr: " + r.err());
        assertTrue(r.err().startsWith(prefix), r.err());
        assertEquals("", r.out());
    }
}
