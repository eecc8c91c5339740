package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

class CompactVerifyCommandsTest {
    @TempDir
    Path tmp;

    private Result cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = tmp.resolve("db").toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    private List<Path> tables() throws IOException {
        try (Stream<Path> s = Files.list(tmp.resolve("db"))) {
            return s.filter(p -> p.toString().endsWith(".sst")).toList();
        }
    }

    @Test
    void compactMergesTablesAndDropsDeletedKeys() throws IOException {
        for (int i = 0; i < 6; i++) {
            assertEquals(ExitCodes.OK, cli("put", "k" + i, "v" + i).exitCode());
        }
        assertEquals(ExitCodes.OK, cli("delete", "k3").exitCode());
        assertEquals(ExitCodes.OK, cli("flush").exitCode());
        // Each command's open flushes the previous WAL into a table; a background compaction that
        // finishes before its command closes (close cancels one still running) may merge them.
        assertFalse(tables().isEmpty(), "each command's open flushes its WAL into a table");

        Result r = cli("compact");
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertTrue(r.out().startsWith("compacted "), r.out());
        assertEquals(1, tables().size());
        assertEquals("v5\n", cli("get", "k5").out());
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "k3").exitCode());
    }

    @Test
    void verifyIsCleanOnAGoodStoreAndFailsOnAFlippedByte() throws IOException {
        assertEquals(ExitCodes.OK, cli("put", "alpha", "one").exitCode());
        assertEquals(ExitCodes.OK, cli("flush").exitCode());
        Result clean = cli("verify");
        assertEquals(ExitCodes.OK, clean.exitCode(), clean.err() + clean.out());
        assertTrue(clean.out().contains("clean:"), clean.out());
        assertTrue(clean.out().contains(".sst"), clean.out());

        Path table = tables().get(0);
        byte[] bytes = Files.readAllBytes(table);
        bytes[5] ^= 0x40;
        Files.write(table, bytes);
        Result damaged = cli("verify", "--quiet");
        assertEquals(ExitCodes.CORRUPTION, damaged.exitCode(), damaged.out());
        assertTrue(damaged.out().contains("ERROR " + table.getFileName()), damaged.out());
        assertTrue(damaged.out().contains("DAMAGED"), damaged.out());
    }

    @Test
    void verifyRefusesADirectoryThatIsNotAStore() throws IOException {
        Result missing = cli("verify");
        assertEquals(ExitCodes.NOT_A_STORE, missing.exitCode());
        Files.createDirectories(tmp.resolve("db"));
        Files.writeString(tmp.resolve("db").resolve("notes.txt"), "hello");
        Result other = cli("verify");
        assertEquals(ExitCodes.NOT_A_STORE, other.exitCode(), other.err());
        assertTrue(other.err().startsWith("bloomstore: "), other.err());
    }
}
