package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;

/** {@code bloomstore put|get|delete|scan|load|stats|flush}, run in-process: outputs and exit codes. */
class StoreCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path store() {
        return tmp.resolve("db");
    }

    /** The temporary scratch directories of secondary opens and live verifies now present (beside the store or in /tmp). */
    private List<String> secondaryScratchDirs() throws IOException {
        List<String> names = new java.util.ArrayList<>();
        for (Path dir : List.of(Path.of(System.getProperty("java.io.tmpdir")), store().toAbsolutePath().getParent())) {
            try (java.nio.file.DirectoryStream<Path> d = Files.newDirectoryStream(dir,
                    "{.,}bloomstore-{secondary,verify}-*")) {
                for (Path p : d) {
                    names.add(p.toString());
                }
            }
        }
        java.util.Collections.sort(names);
        return names;
    }

    private static byte[] b(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private Result cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = store().toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    private static void assertOk(Result r) {
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertEquals("", r.err());
    }

    @Test
    void putGetDelete() {
        assertOk(cli("put", "apple", "red"));
        assertOk(cli("put", "--sync", "banana", "yellow"));
        Result got = cli("get", "apple");
        assertOk(got);
        assertEquals("red\n", got.out());

        Result absent = cli("get", "cherry");
        assertEquals(ExitCodes.NOT_FOUND, absent.exitCode());
        assertEquals("", absent.out());
        assertEquals("", absent.err());

        assertOk(cli("delete", "apple"));
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "apple").exitCode());
        assertOk(cli("delete", "never-there"));
        assertEquals("yellow\n", cli("get", "banana").out());
    }

    @Test
    void dataAfterTheCommandNameAndTheDefaultDirectoryOption() {
        Result r = CliRunner.run("put", "--data", store().toString(), "k", "v");
        assertOk(r);
        assertEquals("v\n", cli("get", "k").out());
        String help = CliRunner.run("--help").out();
        assertTrue(help.replaceAll("\\s+", " ").contains("default: bloomstore-data in the working directory"), help);
        assertTrue(help.contains("7 not a store directory"), help);
    }

    @Test
    void escapedAndHexKeysAndValues() {
        assertOk(cli("put", "tab\\there", "line\\nbreak \\\\ \\x00\\xff"));
        Result got = cli("get", "tab\\there");
        assertEquals("line\\nbreak \\\\ \\x00\\xff\n", got.out());
        Result hex = cli("get", "--hex", "74616209686572 65".replace(" ", ""));
        assertOk(hex);
        assertEquals("6c696e650a627265616b205c2000ff\n", hex.out());
        assertOk(cli("put", "--hex", "00ff", "c3a9"));
        assertEquals("é\n", cli("get", "\\x00\\xff").out());

        Result badEscape = cli("put", "C:\\dir", "v");
        assertEquals(ExitCodes.USAGE, badEscape.exitCode());
        assertTrue(badEscape.err().contains("unknown escape '\\d'"), badEscape.err());
        assertEquals(ExitCodes.USAGE, cli("get", "--hex", "zz").exitCode());
        assertEquals(ExitCodes.USAGE, cli("put", "", "v").exitCode());
    }

    @Test
    void scanRangesLimitsAndReverse() {
        for (String k : List.of("a", "b", "c", "d", "e")) {
            assertOk(cli("put", k, "v" + k));
        }
        assertEquals("a\tva\nb\tvb\nc\tvc\nd\tvd\ne\tve\n", cli("scan").out());
        assertEquals("b\tvb\nc\tvc\n", cli("scan", "--from", "b", "--to", "d").out());
        assertEquals("a\tva\nb\tvb\n", cli("scan", "--limit", "2").out());
        assertEquals("e\tve\nd\tvd\nc\tvc\n", cli("scan", "--reverse", "--limit", "3").out());
        assertEquals("c\tvc\nb\tvb\n", cli("scan", "--reverse", "--from", "b", "--to", "d").out());
        assertEquals("", cli("scan", "--from", "x").out());
        assertEquals("62\t7662\n", cli("scan", "--hex", "--from", "62", "--to", "63").out());
        assertEquals(ExitCodes.USAGE, cli("scan", "--limit", "-1").exitCode());
        assertEquals(ExitCodes.USAGE, cli("scan", "--limit", "many").exitCode());
    }

    @Test
    void loadThenScanRoundTripsBinaryKeys() throws IOException {
        Path file = tmp.resolve("in.tsv");
        Files.writeString(file, "k1\tv1\n\\x00\\x01bin\\xfe\tval\\twith tab\n\nkey é\t\nk1\tv1-again\n");
        Result r = cli("load", file.toString());
        assertOk(r);
        assertTrue(r.out().startsWith("loaded 5 lines (4 entries)"), r.out());
        String scan = cli("scan").out();
        assertEquals("\\x00\\x01bin\\xfe\tval\\twith tab\nk1\tv1-again\nkey é\t\n", scan);

        Files.writeString(tmp.resolve("copy.tsv"), scan);
        Result copy = CliRunner.run("--data", tmp.resolve("copy").toString(), "load", tmp.resolve("copy.tsv").toString());
        assertOk(copy);
        assertEquals(scan, CliRunner.run("--data", tmp.resolve("copy").toString(), "scan").out());

        try (Store s = Store.open(store(), StoreOptions.defaults())) {
            assertArrayEquals("val\twith tab".getBytes(StandardCharsets.UTF_8),
                    s.get(new byte[] {0, 1, 'b', 'i', 'n', (byte) 0xFE}));
        }
    }

    @Test
    void loadHexFromStdin() {
        Result r = CliRunner.runWithStdin("00ff\t01\n61\t62\n", "--data", store().toString(), "load", "--hex", "-");
        assertOk(r);
        assertEquals("61\t62\n00ff\t01\n", cli("scan", "--hex", "--reverse").out());
    }

    @Test
    void aBadLineStopsTheLoadAfterTheLastCompleteBatch() throws IOException {
        Path file = tmp.resolve("bad.tsv");
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 7; i++) {
            sb.append("key").append(i).append('\t').append("v").append(i).append('\n');
        }
        sb.append("no tab here\n").append("key9\tv9\n");
        Files.writeString(file, sb.toString());
        Result r = cli("load", "--batch", "3", file.toString());
        assertEquals(ExitCodes.FORMAT, r.exitCode());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("line 8: no TAB"), r.err());
        assertTrue(r.err().contains("lines 1-6 are loaded, nothing from line 7 on"), r.err());
        assertEquals(6, cli("scan").out().lines().count());
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "key7").exitCode());

        Files.write(tmp.resolve("latin1.tsv"), new byte[] {'k', '\t', (byte) 0xE9, '\n'});
        Result notUtf8 = cli("load", tmp.resolve("latin1.tsv").toString());
        assertEquals(ExitCodes.FORMAT, notUtf8.exitCode());
        assertTrue(notUtf8.err().contains("line 1: not UTF-8"), notUtf8.err());

        Files.writeString(tmp.resolve("two-tabs.tsv"), "a\tb\tc\n");
        assertTrue(cli("load", tmp.resolve("two-tabs.tsv").toString()).err().contains("more than one TAB"));
        Files.writeString(tmp.resolve("empty-key.tsv"), "\tv\n");
        assertTrue(cli("load", tmp.resolve("empty-key.tsv").toString()).err().contains("line 1: empty key; nothing loaded"));

        Result missing = cli("load", tmp.resolve("nope.tsv").toString());
        assertEquals(ExitCodes.IO, missing.exitCode());
        assertTrue(missing.err().contains("no such file"), missing.err());
    }

    @Test
    void statsTextAndJson() throws IOException {
        assertOk(cli("put", "a", "1"));
        assertOk(cli("put", "b", "2"));
        Result flushed = cli("flush");
        assertOk(flushed);
        assertTrue(flushed.out().contains("tables"), flushed.out());

        Result text = cli("stats");
        assertOk(text);
        assertTrue(text.out().contains("L0"), text.out());
        assertTrue(text.out().contains("disk accesses saved"), text.out());
        assertTrue(text.out().contains("since creation"), text.out());
        assertTrue(text.out().contains("filter memory chronicle-bytes"), text.out());
        assertTrue(text.out().contains("configured FPR"), text.out());

        JsonNode j = JSON.readTree(cli("stats", "--json").out());
        for (String name : List.of("gets", "filterNegatives", "filterPositives", "filterTruePositives", "measuredFpr",
                "configuredFpr", "dataBlockReads", "bytesRead", "blockCacheHits", "flushes", "levels", "filterBytes",
                "tableLookups")) {
            assertTrue(j.has(name), name + " in " + j);
        }
        assertEquals(7, j.get("levels").size());
        assertTrue(j.get("levels").get(0).get("files").asInt() >= 1, j.toString());
        // The per-table filter figures come from the sidecars' headers: the command mapped no filter.
        assertEquals(0, j.get("filterBytes").asLong(), j.toString());
        assertTrue(j.get("tables").size() >= 1 && j.get("tables").get(0).get("keyFilterBytes").asLong() > 0,
                j.toString());
        assertEquals("ribbon", j.get("filterKind").asText());
    }

    @Test
    void statsSeeTheGetsOfEarlierCommands() throws IOException {
        StringBuilder tsv = new StringBuilder();
        for (int i = 0; i < 20; i += 2) {
            tsv.append(String.format("k%02d\tv%n", i));
        }
        Files.writeString(tmp.resolve("even.tsv"), tsv.toString());
        assertOk(cli("load", tmp.resolve("even.tsv").toString()));
        assertOk(cli("compact"));
        for (int i = 1; i < 20; i += 2) {
            assertEquals(ExitCodes.NOT_FOUND, cli("get", String.format("k%02d", i)).exitCode());
        }
        JsonNode j = JSON.readTree(cli("stats", "--json").out());
        assertEquals(0, j.get("gets").asLong(), "this open made no lookup");
        JsonNode c = j.get("cumulative");
        assertEquals(10, c.get("gets").asLong(), c.toString());
        // One table holds k00..k18, so 9 of the 10 absent keys (not k19) reach its filter. At
        // about 1% FPR, at most 2 false positives among 9 has probability 0.9999 (binomial).
        assertEquals(9, c.get("tableLookups").asLong(), c.toString());
        assertTrue(c.get("filterNegatives").asLong() >= 7, c.toString());
        assertEquals(9, c.get("filterNegatives").asLong() + c.get("filterPositives").asLong(), c.toString());
        assertTrue(c.get("flushes").asLong() >= 1, c.toString());
        for (var it = c.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            assertTrue(j.has(name), "cumulative." + name + " has a per-open twin of the same name");
        }
        assertEquals("chronicle-bytes", j.get("filterMemory").asText());
    }

    @Test
    void statsShowEachLevelsFiltersAndTheWriteFigures() throws IOException {
        try (Store s = Store.open(store(), StoreOptions.defaults())) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 2000; i++) {
                    s.put(("key" + i).getBytes(StandardCharsets.UTF_8), ("v" + round).getBytes(StandardCharsets.UTF_8));
                }
                s.flush();
            }
            s.compact();
            s.put("newer".getBytes(StandardCharsets.UTF_8), "x".getBytes(StandardCharsets.UTF_8));
            s.flush();
        }

        JsonNode j = JSON.readTree(cli("stats", "--json").out());
        for (String name : List.of("compactions", "compactionBytesRead", "compactionBytesWritten", "flushBytesWritten",
                "userBytesWritten", "writeAmplification", "writeSlowdowns", "writeStops", "filterPolicy",
                "expectedReadsPerMissingLookup", "filterFalsePositives", "totalFiles")) {
            assertTrue(j.has(name), name + " in " + j);
        }
        assertEquals(2, j.get("totalFiles").asInt(), j.toString());
        JsonNode l0 = j.get("levels").get(0);
        assertEquals(1, l0.get("files").asInt(), l0.toString());
        assertEquals(1, l0.get("entries").asLong(), l0.toString());
        JsonNode bottom = null;
        for (JsonNode l : j.get("levels")) {
            if (l.get("level").asInt() > 0 && l.get("files").asInt() > 0) {
                bottom = l;
            }
        }
        assertTrue(bottom != null, "compact() leaves a deeper level: " + j);
        // compact() kept one version of each of the 2,000 keys
        assertEquals(2000, bottom.get("entries").asLong(), bottom.toString());
        double spent = bottom.get("filterBitsPerKey").asDouble();
        assertEquals(bottom.get("filterFileBytes").asLong() * 8.0 / 2000, spent, 1e-9);
        // A ribbon filter of 2,000 keys: 33 blocks of 64 slots (1.056 slots per key) sharing the
        // budget's 312 whole words, 9 to each block and one more to the last 15 (2,496 bytes), plus
        // the sidecar's 72 bytes of header.
        assertTrue(spent >= 9.9 && spent <= 10 + 72 * 8 / 2000.0, "2,496 fingerprint bytes plus the sidecar's header: "
                + spent);
        JsonNode policy = bottom.get("policy");
        assertEquals("ribbon", policy.get("kind").asText());
        assertEquals(10.0, policy.get("bitsPerKey").asDouble());
        assertEquals(false, policy.get("skipped").asBoolean());
        // the live table's rate: 2^-9 for keys starting in 18 blocks, 2^-10 in 15 (about 0.151%),
        // under the configured rate, which assumes 1.1 slots per key
        double expected = bottom.get("expectedFpr").asDouble();
        assertTrue(expected > 1.0 / 1024 && expected < 1.0 / 512, "expected FPR " + expected);
        assertEquals(io.bloomstore.bloom.Filters.ribbonFpr(10), j.get("configuredFpr").asDouble(), 1e-12);
        assertTrue(expected < j.get("configuredFpr").asDouble(), "a 2,000-key table needs fewer slots than 1.1 per key");
        assertTrue(bottom.get("hitRatio").isNull(), "no lookups yet: " + bottom);
        for (String name : List.of("filterNegatives", "filterPositives", "filterTruePositives", "measuredFpr",
                "probes", "filterBytesSaved")) {
            assertEquals(0, bottom.get(name).asDouble(), name);
        }
        assertTrue(j.get("levels").get(6).get("filterBitsPerKey").isNull(), "an empty level spends nothing");

        String text = cli("stats").out();
        for (String part : List.of("bits/key", "ribbon 10.00 bits/key (uniform)", "expected FPR", "hit ratio",
                "compactions", "write amplification", "L" + bottom.get("level").asInt(),
                String.format(java.util.Locale.ROOT, "%.2f", spent))) {
            assertTrue(text.contains(part), part + " in\n" + text);
        }
    }

    @Test
    void directoriesThatAreNotStoresAreRefused() throws IOException {
        Result missing = cli("get", "k");
        assertEquals(ExitCodes.NOT_A_STORE, missing.exitCode());
        assertTrue(missing.err().contains("does not exist (put or load create one)"), missing.err());
        assertTrue(Files.notExists(store()), "get must not create a store");

        Files.createDirectories(store());
        Result empty = cli("scan");
        assertEquals(ExitCodes.NOT_A_STORE, empty.exitCode());
        assertTrue(empty.err().contains("is empty"), empty.err());

        Files.writeString(store().resolve("notes.txt"), "not a store");
        for (Result r : List.of(cli("put", "k", "v"), cli("stats"), cli("delete", "k"), cli("flush"))) {
            assertEquals(ExitCodes.NOT_A_STORE, r.exitCode(), r.err());
            assertTrue(r.err().contains("is not a BloomStore directory"), r.err());
            assertEquals(1, r.errLines().size());
        }

        Path file = tmp.resolve("plain-file");
        Files.writeString(file, "x");
        Result notDir = CliRunner.run("--data", file.toString(), "put", "k", "v");
        assertEquals(ExitCodes.NOT_A_STORE, notDir.exitCode());
        assertTrue(notDir.err().contains("is a file, not a store directory"), notDir.err());
    }

    @Test
    void aStoreOpenElsewhereIsReadThroughASecondaryAndWritesAreLocked() throws IOException {
        assertOk(cli("put", "k", "v"));
        List<String> scratchDirs = secondaryScratchDirs();
        try (Store open = Store.open(store(), StoreOptions.defaults())) {
            open.put(b("k2"), b("v2"));
            for (String[] read : List.of(new String[] {"get", "k2"}, new String[] {"get", "k", "k2"},
                    new String[] {"scan"}, new String[] {"stats"}, new String[] {"verify"})) {
                Result r = cli(read);
                assertEquals(ExitCodes.OK, r.exitCode(), String.join(" ", read) + ": " + r.err());
                assertEquals(1, r.errLines().size(), r.err());
                assertTrue(r.err().contains("held open by another process"), r.err());
                assertTrue(!read[0].equals("verify") || r.out().contains("clean: "), r.out());
            }
            assertEquals("v2\n", cli("get", "k2").out());
            assertEquals("k\tv\nk2\tv2\n", cli("scan").out());
            for (String[] write : List.of(new String[] {"put", "k", "w"}, new String[] {"delete", "k"},
                    new String[] {"flush"})) {
                Result r = cli(write);
                assertEquals(ExitCodes.LOCKED, r.exitCode(), String.join(" ", write));
                assertEquals(1, r.errLines().size(), r.err());
                assertTrue(r.err().contains("already open"), r.err());
            }
            assertEquals("v", new String(open.get(b("k")), java.nio.charset.StandardCharsets.UTF_8));
            assertEquals(scratchDirs, secondaryScratchDirs(), "each read removed its temporary scratch directory");
        }
        assertEquals("v\n", cli("get", "k").out());
    }

    @Test
    void usageErrors() {
        assertEquals(ExitCodes.USAGE, CliRunner.run("frobnicate").exitCode());
        assertEquals(ExitCodes.USAGE, cli("put", "only-a-key").exitCode());
        assertEquals(ExitCodes.USAGE, cli("get", "--bogus", "k").exitCode());
        assertEquals(ExitCodes.USAGE, cli("load", "--batch", "0", "-").exitCode());
        assertEquals(ExitCodes.USAGE, cli("load", "--batch", "ten", "-").exitCode());
        Result r = cli("scan", "--limit");
        assertEquals(ExitCodes.USAGE, r.exitCode());
        assertEquals(1, r.errLines().size(), r.err());
    }
}
