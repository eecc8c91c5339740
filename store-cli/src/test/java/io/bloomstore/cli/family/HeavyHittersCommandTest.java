package io.bloomstore.cli.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.bloomstore.cli.Main;
import picocli.CommandLine;

class HeavyHittersCommandTest {

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine(new Main());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void jsonHasBothStructuresPerAlphaWithConsistentCounts() throws Exception {
        String[] r = run("experiment", "heavy-hitters", "--ips", "5000", "--alpha", "1,100", "--seed", "7", "--json");
        assertEquals("0", r[0], r[2]);
        JsonNode results = new ObjectMapper().readTree(r[1]).get("results");
        assertEquals(4, results.size());
        for (JsonNode row : results) {
            long tp = row.get("tp").asLong();
            long fn = row.get("fn").asLong();
            long fp = row.get("fp").asLong();
            long tn = row.get("tn").asLong();
            assertEquals(5000, tp + fn + fp + tn);
            assertEquals(1000, tp + fn, "20% of the queries are repeated addresses");
            assertTrue(row.get("memoryBits").asLong() > 0);
        }
        JsonNode scbf = results.get(0);
        assertEquals("selective counting Bloom", scbf.get("structure").asText());
        assertEquals(33_280 * 4, scbf.get("memoryBits").asLong());
        // 50 addresses × 20 repeats each ≥ m/k = 5000/350: Count-Min reports every one and nothing else.
        JsonNode cms = results.get(3);
        assertEquals("count-min heavy hitters", cms.get("structure").asText());
        assertEquals(1000, cms.get("tp").asLong());
        assertEquals(0, cms.get("fp").asLong());
    }

    @Test
    void sameSeedSameTable() {
        String[] a = run("experiment", "heavy-hitters", "--ips", "3000", "--seed", "3");
        String[] b = run("experiment", "heavy-hitters", "--ips", "3000", "--seed", "3");
        assertEquals("0", a[0], a[2]);
        assertEquals(a[1], b[1]);
        assertTrue(a[1].contains("TP") && a[1].contains("count-min heavy hitters"), a[1]);
    }

    @Test
    void badArgumentsAreRefused() {
        assertNotEquals("0", run("experiment", "heavy-hitters", "--ips", "5")[0]);
        assertNotEquals("0", run("experiment", "heavy-hitters", "--alpha", "0")[0]);
        assertNotEquals("0", run("experiment", "heavy-hitters", "--heavy", "100000")[0]);
    }
}
