package io.bloomstore.cli.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/**
 * {@code filter check} and {@code filter info} on table sidecars, against the golden files of
 * {@code testdata/golden/sstable/} (GoldenTableTest wrote them): {@code 000003.filter} is a
 * version-2 filter set (key filter of the 200 keys {@code golden-0000..0199}, prefix filter of
 * {@code fixed:10}, range filter over the one 8-byte head {@code golden-0}); {@code 000001.filter}
 * a version-1 Bloom filter of the same keys.
 */
class FilterSetCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path GOLDEN = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden").resolve("sstable");
    private static final String SET = GOLDEN.resolve("000003.filter").toString();

    @TempDir
    Path tmp;

    private static List<String> goldenKeys() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            keys.add(String.format("golden-%04d", i));
        }
        return keys;
    }

    private static Result check(String file, List<String> keys, String... options) {
        List<String> args = new ArrayList<>(List.of("filter", "check", file));
        args.addAll(List.of(options));
        args.addAll(keys);
        return CliRunner.run(args.toArray(new String[0]));
    }

    @Test
    void infoDescribesEveryMemberOfTheGoldenSet() throws IOException {
        Result r = CliRunner.run("filter", "info", SET, "--json");
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        JsonNode j = JSON.readTree(r.out());
        assertEquals(2, j.get("formatVersion").asInt());
        assertEquals("ok", j.get("checksums").asText());
        JsonNode s = j.get("sections");
        assertEquals(3, s.size());
        assertEquals("key", s.get(0).get("role").asText());
        assertEquals("bloom", s.get(0).get("kind").asText());
        assertEquals(200, s.get(0).get("n").asLong());
        assertEquals(10.0, s.get(0).get("bitsPerKey").asDouble(), 0.5);
        assertEquals("prefix", s.get(1).get("role").asText());
        assertEquals("fixed:10", s.get(1).get("descriptor").asText());
        assertEquals(20, s.get(1).get("n").asLong());
        assertEquals("range", s.get(2).get("role").asText());
        assertEquals("range", s.get(2).get("kind").asText());
        assertEquals("first8", s.get(2).get("descriptor").asText());
        assertEquals(1, s.get(2).get("n").asLong());
        assertEquals(256, s.get(2).get("maxRange").asLong());
        long end = 0;
        for (JsonNode sec : s) {
            assertTrue(sec.get("bytes").asLong() > 64, sec.toString());
            assertTrue(sec.get("expectedFpr").asDouble() > 0 && sec.get("expectedFpr").asDouble() < 0.02, sec.toString());
            end = sec.get("offset").asLong() + sec.get("bytes").asLong();
        }
        assertEquals(Files.size(Path.of(SET)), end, "the last member ends the file");

        Result text = CliRunner.run("filter", "info", SET);
        assertTrue(text.out().contains("filter set of 3 filters, format version 2"), text.out());
        assertTrue(text.out().contains("range   range filter (first8)"), text.out());
        assertTrue(text.out().contains("ranges of up to 256 values"), text.out());
    }

    @Test
    void checkAsksTheChosenMemberOfASet() {
        List<String> keys = goldenKeys();
        Result all = check(SET, keys);
        assertEquals(ExitCodes.OK, all.exitCode(), all.err());
        assertEquals(200, all.out().lines().filter(l -> l.startsWith("maybe  golden-")).count());

        List<String> absent = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            absent.add("missing-" + i);
        }
        Result missing = check(SET, absent);
        assertEquals(ExitCodes.NOT_FOUND, missing.exitCode());
        assertTrue(missing.out().lines().filter(l -> l.startsWith("absent ")).count() >= 90, missing.out());

        Result prefixes = check(SET, List.of("golden-000", "golden-019"), "--role", "prefix");
        assertEquals(ExitCodes.OK, prefixes.exitCode(), prefixes.err());
        Result range = check(SET, List.of("golden-0123", "golden-0"), "--role", "range");
        assertEquals(ExitCodes.OK, range.exitCode(), range.err());
        // One head in a code space of 2^14: another head is almost never a false positive.
        Result otherHead = check(SET, List.of("zzzzzzzz"), "--role", "range");
        assertEquals("absent zzzzzzzz\n", otherHead.out());

        Result v1 = check(GOLDEN.resolve("000001.filter").toString(), keys);
        assertEquals(ExitCodes.OK, v1.exitCode(), v1.err());
        Result noPrefix = check(GOLDEN.resolve("000001.filter").toString(), List.of("golden-000"), "--role", "prefix");
        assertEquals(ExitCodes.USAGE, noPrefix.exitCode());
        assertTrue(noPrefix.err().contains("has no prefix filter (it holds: key)"), noPrefix.err());
        assertEquals(ExitCodes.USAGE, check(SET, List.of("x"), "--role", "bogus").exitCode());
    }

    @Test
    void damageInAnyMemberIsCorruptionWhicheverMemberIsAsked() throws IOException {
        JsonNode s = JSON.readTree(CliRunner.run("filter", "info", SET, "--json").out()).get("sections");
        for (JsonNode sec : s) {
            Path copy = tmp.resolve(sec.get("role").asText() + ".filter");
            byte[] bytes = Files.readAllBytes(Path.of(SET));
            int payload = (int) sec.get("offset").asLong() + 64;
            bytes[payload] ^= 0x10;
            Files.write(copy, bytes);
            Result r = check(copy.toString(), List.of("golden-0005"));
            assertEquals(ExitCodes.CORRUPTION, r.exitCode(), sec + ": " + r.err());
            assertTrue(r.err().contains("payload CRC32C"), r.err());
            assertEquals(ExitCodes.CORRUPTION, CliRunner.run("filter", "info", copy.toString()).exitCode());
            if (!sec.get("role").asText().equals("key")) {
                Result unchecked = check(copy.toString(), List.of("golden-0005"), "--no-verify");
                assertEquals(ExitCodes.OK, unchecked.exitCode(), unchecked.err());
            }
        }
    }
}
