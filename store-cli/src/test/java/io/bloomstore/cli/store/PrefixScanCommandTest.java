package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/** {@code scan --prefix}, {@code --prefix-extractor}, per-table filter memory in {@code stats}, and filter sets in {@code filter info}. */
class PrefixScanCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Result cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = tmp.resolve("db").toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    @Test
    void scanByPrefixWithPrefixFiltersAndReportThem() throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int u = 1; u <= 3; u++) {
            for (int i = 1; i <= 3; i++) {
                lines.append("user").append(u).append("/item").append(i).append('\t').append("v").append(u).append(i)
                        .append('\n');
            }
        }
        Path input = tmp.resolve("in.tsv");
        Files.writeString(input, lines);
        assertEquals(ExitCodes.OK, cli("load", input.toString(), "--prefix-extractor", "upto:/").exitCode());
        assertEquals(ExitCodes.OK, cli("flush", "--prefix-extractor", "upto:/").exitCode());

        Result scan = cli("scan", "--prefix", "user2/", "--prefix-extractor", "upto:/");
        assertEquals(ExitCodes.OK, scan.exitCode(), scan.err());
        assertEquals("user2/item1\tv21\nuser2/item2\tv22\nuser2/item3\tv23\n", scan.out());
        assertEquals("user2/item3\tv23\n", cli("scan", "--prefix", "user2/", "--reverse", "--limit", "1").out());
        assertEquals("", cli("scan", "--prefix", "user9/", "--prefix-extractor", "upto:2f").out());

        JsonNode stats = JSON.readTree(cli("stats", "--json", "--prefix-extractor", "upto:/").out());
        JsonNode table = stats.get("tables").get(0);
        assertEquals("upto:2f", table.get("prefixExtractor").asText());
        assertTrue(table.get("prefixFilterBytes").asLong() > 0);
        // 9 keys and 3 prefixes: the default ribbon filters have one 64-slot block each, of 9-bit fingerprints
        // (a set within one block gets ⌊budget / 1.1⌋ bits whatever it costs)
        assertTrue(table.get("keyFilterBytes").asLong() >= table.get("prefixFilterBytes").asLong());
        assertEquals("upto:2f", stats.get("prefixExtractor").asText());

        Path sidecar;
        try (Stream<Path> files = Files.list(tmp.resolve("db"))) {
            sidecar = files.filter(p -> p.toString().endsWith(".filter")).findFirst().orElseThrow();
        }
        Result info = CliRunner.run("filter", "info", sidecar.toString(), "--json");
        assertEquals(ExitCodes.OK, info.exitCode(), info.err());
        JsonNode sections = JSON.readTree(info.out()).get("sections");
        assertEquals("key", sections.get(0).get("role").asText());
        assertEquals(9, sections.get(0).get("n").asLong());
        assertEquals("prefix", sections.get(1).get("role").asText());
        assertEquals("upto:2f", sections.get(1).get("descriptor").asText());
        assertEquals(3, sections.get(1).get("n").asLong());
        assertTrue(CliRunner.run("filter", "info", sidecar.toString()).out().contains("filter set of 2 filters"));
    }

    @Test
    void badArgumentsGetAClearError() {
        Result both = cli("scan", "--prefix", "a", "--from", "b");
        assertEquals(ExitCodes.USAGE, both.exitCode());
        assertTrue(both.err().contains("--prefix cannot be combined"), both.err());
        Result bad = cli("scan", "--prefix", "a", "--prefix-extractor", "fixed:x");
        assertEquals(ExitCodes.USAGE, bad.exitCode());
        assertTrue(bad.err().contains("fixed:N"), bad.err());
    }
}
