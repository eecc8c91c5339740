package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/** {@code ingest}: an external sort of unsorted lines into tables linked into the store. */
class IngestCommandTest {
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
    void unsortedLinesWithDuplicatesSpillToRunsAndTheLastLineWins() throws IOException {
        long seed = System.nanoTime();
        System.out.println("IngestCommandTest seed " + seed);
        Random random = new Random(seed);
        List<String> lines = new ArrayList<>();
        int keys = 30_000;
        for (int i = 0; i < keys; i++) {
            lines.add(String.format("key%06d\tfirst-%d-%s", i, i, "x".repeat(40)));
        }
        Collections.shuffle(lines, random);
        // A second value for every tenth key, later in the file: it wins.
        for (int i = 0; i < keys; i += 10) {
            lines.add(String.format("key%06d\tsecond-%d", i, i));
        }
        Path file = tmp.resolve("data.tsv");
        Files.write(file, lines);
        Result r = cli("ingest", file.toString(), "--memory", "1", "--table-mib", "1", "--json");
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertTrue(r.out().contains("\"keys\" : 30000"), r.out());
        assertTrue(!r.out().contains("\"sortRuns\" : 0"), "1 MiB of memory spills sorted runs: " + r.out());
        assertTrue(!r.out().contains("\"tables\" : 1,"), "1 MiB tables: several: " + r.out());
        assertEquals("second-20\n", cli("get", "key000020").out());
        assertEquals("first-21-" + "x".repeat(40) + "\n", cli("get", "key000021").out());
        assertEquals(keys, cli("scan").out().lines().count());
        try (var left = Files.list(tmp)) {
            assertEquals(List.of("data.tsv", "db"), left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "the scratch directory is gone");
        }

        Files.write(tmp.resolve("more.tsv"), List.of("key000005\toverwrite", "zz\tnew"));
        Result overlap = cli("ingest", tmp.resolve("more.tsv").toString(), "--json");
        assertEquals(ExitCodes.OK, overlap.exitCode(), overlap.err());
        assertTrue(overlap.out().contains("\"levels\" : [ 0 ]"), "overlapping: rewritten into level 0: "
                + overlap.out());
        assertEquals("overwrite\n", cli("get", "key000005").out(), "the ingested value is the newest");
        assertEquals("new\n", cli("get", "zz").out());

        Files.write(tmp.resolve("bad.tsv"), List.of("zz1\tok", "no tab here"));
        Result bad = cli("ingest", tmp.resolve("bad.tsv").toString());
        assertEquals(ExitCodes.FORMAT, bad.exitCode());
        assertTrue(bad.err().contains("line 2") && bad.err().contains("nothing ingested"), bad.err());
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "zz1").exitCode());

        Files.write(tmp.resolve("new.tsv"), List.of("zz2\tb", "zz1\ta"));
        assertEquals(ExitCodes.OK, cli("ingest", tmp.resolve("new.tsv").toString()).exitCode());
        assertEquals("a\n", cli("get", "zz1").out());
    }
}
