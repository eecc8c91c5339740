package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bloomstore delete-range FROM TO}, run in-process, and the range tombstone count in {@code stats}. */
class DeleteRangeCommandTest {
    @TempDir
    Path tmp;

    private Result cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = tmp.resolve("db").toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    private static void assertOk(Result r) {
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertEquals("", r.err());
    }

    @Test
    void deletesTheHalfOpenRangeAndStatsCountTheTombstone() throws Exception {
        for (String k : new String[] {"a", "b", "c", "d"}) {
            assertOk(cli("put", k, "v" + k));
        }
        assertOk(cli("delete-range", "b", "d"));
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "b").exitCode());
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "c").exitCode());
        assertEquals("vd\n", cli("get", "d").out(), "TO is exclusive");
        assertEquals("a\tva\nd\tvd\n", cli("scan").out());
        Result stats = cli("stats");
        assertTrue(stats.out().contains("live range tombstones"), stats.out());
        JsonNode json = new ObjectMapper().readTree(cli("stats", "--json").out());
        assertEquals(1, json.path("rangeTombstones").asLong(), json.toString());
        assertOk(cli("delete-range", "--hex", "61", "62"));
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "a").exitCode());
        assertOk(cli("delete-range", "x", "x"));
    }

    @Test
    void fromAfterToIsAUsageError() {
        assertOk(cli("put", "a", "1"));
        Result r = cli("delete-range", "z", "a");
        assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("after"), r.err());
        Result help = CliRunner.run("delete-range", "--help");
        assertTrue(help.out().contains("exclusive"), help.out());
    }
}
