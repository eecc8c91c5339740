package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/** {@code checkpoint}, {@code backup} and {@code restore}: what they print, their exit codes and errors. */
class CheckpointBackupCommandsTest {
    @TempDir
    Path tmp;

    private Result cli(Path data, String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = data.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    @Test
    void checkpointMakesAnOpenableCopyAndRefusesBadTargets() throws IOException {
        Path db = tmp.resolve("db");
        assertEquals(ExitCodes.OK, cli(db, "put", "k1", "v1").exitCode());
        assertEquals(ExitCodes.OK, cli(db, "flush").exitCode());
        assertEquals(ExitCodes.OK, cli(db, "put", "k2", "v2").exitCode());
        Path copy = tmp.resolve("copy");
        Result r = cli(db, "checkpoint", copy.toString(), "--json");
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertTrue(r.out().contains("\"linkedFiles\""), r.out());
        assertEquals("v1\n", cli(copy, "get", "k1").out());
        assertEquals("v2\n", cli(copy, "get", "k2").out());

        Result inside = cli(db, "checkpoint", db.resolve("cp").toString());
        assertEquals(ExitCodes.USAGE, inside.exitCode());
        assertTrue(inside.err().contains("inside the store directory"), inside.err());
        Result taken = cli(db, "checkpoint", copy.toString());
        assertEquals(ExitCodes.USAGE, taken.exitCode());
        assertTrue(taken.err().contains("not empty"), taken.err());
        assertEquals(1, taken.errLines().size(), taken.err());
    }

    @Test
    void backupListRestoreRoundTripAndErrors() throws IOException {
        Path db = tmp.resolve("db");
        Path backups = tmp.resolve("backups");
        assertEquals(ExitCodes.OK, cli(db, "put", "k1", "v1").exitCode());
        Result first = cli(db, "backup", "--to", backups.toString());
        assertEquals(ExitCodes.OK, first.exitCode(), first.err());
        assertTrue(first.out().startsWith("backup 1 of "), first.out());
        assertEquals(ExitCodes.OK, cli(db, "put", "k2", "v2").exitCode());
        Result second = cli(db, "backup", "--to", backups.toString(), "--keep", "1", "--json");
        assertEquals(ExitCodes.OK, second.exitCode(), second.err());
        assertTrue(second.out().contains("\"id\" : 2") && second.out().contains("\"backupsKept\" : 1"), second.out());

        Result list = cli(db, "backup", "--to", backups.toString(), "--list");
        assertEquals(ExitCodes.OK, list.exitCode(), list.err());
        assertEquals(2, list.out().lines().count(), list.out());
        assertTrue(list.out().lines().skip(1).findFirst().orElseThrow().startsWith("2 "), list.out());

        Path restored = tmp.resolve("restored");
        Result restore = cli(restored, "restore", "--from", backups.toString());
        assertEquals(ExitCodes.OK, restore.exitCode(), restore.err());
        assertTrue(restore.out().startsWith("restored backup 2 "), restore.out());
        assertEquals("v2\n", cli(restored, "get", "k2").out());

        Result notEmpty = cli(db, "restore", "--from", backups.toString());
        assertEquals(ExitCodes.USAGE, notEmpty.exitCode());
        assertTrue(notEmpty.err().contains("not empty"), notEmpty.err());
        Result gone = cli(tmp.resolve("other"), "restore", "--from", backups.toString(), "--backup", "1");
        assertEquals(ExitCodes.USAGE, gone.exitCode());
        assertTrue(gone.err().contains("no backup 1"), gone.err());

        Result verified = cli(db, "backup", "--to", backups.toString(), "--verify");
        assertEquals(ExitCodes.OK, verified.exitCode(), verified.err());
        assertTrue(verified.out().startsWith("verified 1 backups"), verified.out());
        Path wal;
        try (var files = Files.walk(backups.resolve("private"))) {
            wal = files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(wal);
        bytes[bytes.length - 1] ^= 1;
        Files.write(wal, bytes);
        Result damaged = cli(db, "backup", "--to", backups.toString(), "--verify");
        assertEquals(ExitCodes.CORRUPTION, damaged.exitCode(), damaged.out());
        assertTrue(damaged.err().contains(wal.getFileName().toString()), damaged.err());

        Path foreign = Files.createDirectories(tmp.resolve("foreign"));
        Files.writeString(foreign.resolve("notes.txt"), "mine");
        Result wrongDir = cli(db, "backup", "--to", foreign.toString());
        assertEquals(ExitCodes.USAGE, wrongDir.exitCode());
        assertTrue(wrongDir.err().contains("not a BloomStore backup directory"), wrongDir.err());
        assertEquals(ExitCodes.USAGE, cli(db, "backup", "--to", backups.toString(), "--keep", "0").exitCode());
    }
}
