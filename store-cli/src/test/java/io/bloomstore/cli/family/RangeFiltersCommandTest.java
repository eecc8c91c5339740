package io.bloomstore.cli.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/**
 * {@code bloomstore experiment range-filters}: the JSON holds every filter for every cell, each
 * measured rate agrees with its filter's theory (tolerance: 4σ + 5 false positives of the expected
 * count, seed 7), the table is reproducible from its seed, and bad arguments are refused.
 */
class RangeFiltersCommandTest {

    @Test
    void jsonHasEveryFilterPerCellAndRatesFollowTheory() throws Exception {
        Result r = CliRunner.run("experiment", "range-filters", "--keys", "20000", "--bits", "12,18", "--lengths",
                "1,64", "--queries", "4000", "--seed", "7", "--json");
        assertEquals(0, r.exitCode(), r.err());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals(20000, doc.get("keys").asInt());
        JsonNode results = doc.get("results");
        // Per bits (2) and query kind (2): R = 1 has grafite, rosetta and bloom; R = 64 the first two.
        assertEquals(2 * 2 * (3 + 2), results.size());
        Map<String, JsonNode> byKey = new HashMap<>();
        for (JsonNode row : results) {
            assertEquals(4000, row.get("emptyRanges").asLong());
            long fp = row.get("falsePositives").asLong();
            assertEquals((double) fp / 4000, row.get("fpr").asDouble(), 1e-12);
            double expected = row.get("theory").asDouble() * 4000;
            assertTrue(Math.abs(fp - expected) <= 4 * Math.sqrt(expected) + 5, row.toString());
            assertTrue(row.get("actualBitsPerKey").asDouble() <= row.get("bitsPerKey").asInt() + 0.5, row.toString());
            byKey.put(row.get("bitsPerKey").asInt() + "/" + row.get("queries").asText() + "/"
                    + row.get("rangeLength").asLong() + "/" + row.get("filter").asText(), row);
        }
        // Grafite beats Rosetta at 18 bits on ranges of 64 just past a key: 64/2^16 against ~64·0.6185^18.
        assertTrue(byKey.get("18/correlated/64/grafite").get("theory").asDouble()
                < byKey.get("18/correlated/64/rosetta").get("theory").asDouble() / 3);
        assertEquals(4, doc.get("rosettaSplits").size());
    }

    @Test
    void sameSeedSameTable() {
        String[] args = {"experiment", "range-filters", "--keys", "5000", "--bits", "10", "--lengths", "1,16",
            "--queries", "2000", "--seed", "3"};
        Result a = CliRunner.run(args);
        Result b = CliRunner.run(args);
        assertEquals(0, a.exitCode(), a.err());
        assertEquals(a.out(), b.out());
        assertTrue(a.out().contains("grafite") && a.out().contains("rosetta") && a.out().contains("bloom"), a.out());
        assertTrue(a.out().contains("Rosetta bits/prefix by level"), a.out());
    }

    @Test
    void badArgumentsAreRefused() {
        assertEquals(ExitCodes.USAGE, CliRunner.run("experiment", "range-filters", "--keys", "1").exitCode());
        assertEquals(ExitCodes.USAGE, CliRunner.run("experiment", "range-filters", "--bits", "2").exitCode());
        Result tooLong = CliRunner.run("experiment", "range-filters", "--range-bits", "4", "--lengths", "17");
        assertEquals(ExitCodes.USAGE, tooLong.exitCode());
        assertTrue(tooLong.err().contains("range lengths must be 1..2^4"), tooLong.err());
    }
}
