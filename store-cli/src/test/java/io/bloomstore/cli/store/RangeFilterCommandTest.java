package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/**
 * {@code --range-filter-bits} and {@code --range-filter-block-bits} on the store commands: tables
 * written with them hold a range filter (seen in {@code stats} and {@code filter info}), tables
 * written without hold none, scans are right either way, and bad values are a usage error naming
 * the option.
 */
class RangeFilterCommandTest {
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

    private Path input(int from, int to) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = from; i < to; i++) {
            lines.append(String.format("k%05d\tv%d%n", i, i));
        }
        Path in = tmp.resolve("in-" + from + ".tsv");
        Files.writeString(in, lines);
        return in;
    }

    @Test
    void tablesWrittenWithTheOptionHoldARangeFilterAndScansStayRight() throws IOException {
        String[] range = {"--range-filter-bits", "20", "--range-filter-block-bits", "12"};
        assertEquals(ExitCodes.OK, cli(concat(new String[] {"load", input(0, 500).toString()}, range)).exitCode());
        assertEquals(ExitCodes.OK, cli(concat(new String[] {"flush"}, range)).exitCode());
        // A second table written without range filters.
        assertEquals(ExitCodes.OK, cli("load", input(1000, 1500).toString()).exitCode());
        assertEquals(ExitCodes.OK, cli("flush").exitCode());

        JsonNode stats = JSON.readTree(cli(concat(new String[] {"stats", "--json"}, range)).out());
        JsonNode opt = stats.get("rangeFilter");
        assertEquals(20.0, opt.get("bitsPerKey").asDouble());
        assertEquals(12, opt.get("blockBits").asInt());
        List<Long> rangeBytes = stats.get("tables").findValues("rangeFilterBytes").stream().map(JsonNode::asLong)
                .sorted().toList();
        assertEquals(2, rangeBytes.size());
        assertEquals(0L, rangeBytes.get(0), "the table flushed without the option has no range filter");
        assertTrue(rangeBytes.get(1) > 0, stats.toString());
        assertTrue(JSON.readTree(cli("stats", "--json").out()).get("rangeFilter").isNull());

        for (String[] opts : List.of(range, new String[0], new String[] {"--range-filter-bits", "8"})) {
            Result hit = cli(concat(new String[] {"scan", "--from", "k00100", "--to", "k00103"}, opts));
            assertEquals("k00100\tv100\nk00101\tv101\nk00102\tv102\n", hit.out(), hit.err());
            Result other = cli(concat(new String[] {"scan", "--from", "k01200", "--to", "k01202"}, opts));
            assertEquals("k01200\tv1200\nk01201\tv1201\n", other.out(), other.err());
            Result empty = cli(concat(new String[] {"scan", "--from", "k00600", "--to", "k00610"}, opts));
            assertEquals(ExitCodes.OK, empty.exitCode(), empty.err());
            assertEquals("", empty.out());
        }

        int rangeSections = 0;
        try (Stream<Path> files = Files.list(tmp.resolve("db"))) {
            for (Path sidecar : files.filter(p -> p.toString().endsWith(".filter")).toList()) {
                Result info = CliRunner.run("filter", "info", sidecar.toString(), "--json");
                assertEquals(ExitCodes.OK, info.exitCode(), info.err());
                for (JsonNode s : JSON.readTree(info.out()).path("sections")) {
                    if (s.get("role").asText().equals("range")) {
                        rangeSections++;
                        assertEquals(4096, s.get("maxRange").asLong());
                        assertEquals(500, s.get("n").asLong());
                    }
                }
            }
        }
        assertEquals(1, rangeSections);
    }

    @Test
    void badValuesAreAUsageErrorNamingTheOption() {
        Result low = cli("scan", "--range-filter-bits", "2");
        assertEquals(ExitCodes.USAGE, low.exitCode());
        assertTrue(low.err().contains("--range-filter-bits") && low.err().contains("[3, 32]"), low.err());
        Result block = cli("scan", "--range-filter-bits", "10", "--range-filter-block-bits", "41");
        assertEquals(ExitCodes.USAGE, block.exitCode());
        assertTrue(block.err().contains("block bits must be in [0, 40]"), block.err());
        Result alone = cli("scan", "--range-filter-block-bits", "8");
        assertEquals(ExitCodes.USAGE, alone.exitCode());
        assertTrue(alone.err().contains("--range-filter-block-bits needs --range-filter-bits"), alone.err());
        assertEquals(ExitCodes.USAGE, cli("load", "-", "--range-filter-bits", "x").exitCode());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
