package io.bloomstore.cli.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;

class FilterParadoxCommandTest {

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new FilterParadoxCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void bitsPerKeyGivesTheThresholdAndOneLineOfExplanation() {
        String[] r = run("--alpha", "5", "--bits-per-key", "10");
        assertEquals("0", r[0], r[2]);
        String[] lines = r[1].strip().split("\n");
        assertEquals(2, lines.length, r[1]);
        assertTrue(lines[0].contains("0.00163583"), lines[0]);
        assertTrue(lines[1].contains("1 in 611"), lines[1]);
    }

    @Test
    void mAndNAsJson() throws Exception {
        String[] r = run("--alpha", "100", "--m", "33280", "--n", "30000", "--json");
        assertEquals("0", r[0], r[2]);
        JsonNode j = new ObjectMapper().readTree(r[1]);
        assertEquals(0.0058342818493808506, j.get("threshold").asDouble(), 1e-15);
        assertEquals(1.0 / 101, j.get("presentPosterior").asDouble(), 1e-15);
        assertEquals(33280, j.get("m").asLong());
    }

    @Test
    void badArgumentsAreRefused() {
        assertNotEquals("0", run("--alpha", "5")[0]);
        assertNotEquals("0", run("--alpha", "5", "--bits-per-key", "10", "--m", "5", "--n", "1")[0]);
        assertNotEquals("0", run("--alpha", "-1", "--bits-per-key", "10")[0]);
        assertNotEquals("0", run("--alpha", "1", "--m", "0", "--n", "10")[0]);
    }
}
