package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.core.BackupInfo;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreBackup;
import io.bloomstore.core.StoreOptions;

/**
 * {@code bloomstore backup} and {@code restore} killed with SIGKILL at random moments (the real
 * jar in a child JVM): after every kill the backup set lists, every backup in it restores to the
 * store as it was when that backup was made, and the next backup works; a killed restore leaves a
 * target that is either the complete store or refused as one. Prints its seed.
 */
class BackupKillIT {
    private static final Path JAR = Path.of(System.getProperty("bloomstore.jar", "target/bloomstore.jar"));
    private static final int ROUNDS = 6;
    private static final int KEYS_PER_ROUND = 40_000;
    /** Kills come within this long of the command's first write. */
    private static final long KILL_WINDOW_MILLIS = 200;

    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int round, int i) {
        return ("round " + round + " value " + i + " " + "x".repeat(60)).getBytes(StandardCharsets.UTF_8);
    }

    /** Round {@code r} rewrites some keys and adds new ones; key "round" says which round the store is at. */
    private static void writeRound(Path dir, int round) throws IOException {
        try (Store s = Store.open(dir, StoreOptions.defaults())) {
            for (int i = round * KEYS_PER_ROUND / 2; i < round * KEYS_PER_ROUND / 2 + KEYS_PER_ROUND; i++) {
                s.put(key(i), value(round, i));
            }
            s.put("round".getBytes(StandardCharsets.UTF_8), Integer.toString(round).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Checks that {@code dir} holds exactly the store as it was after round {@code round}. */
    private static void checkRound(Path dir, int round) throws IOException {
        try (Store s = Store.open(dir, StoreOptions.builder().createIfMissing(false).build())) {
            assertEquals(Integer.toString(round), new String(s.get("round".getBytes(StandardCharsets.UTF_8)),
                    StandardCharsets.UTF_8));
            int last = round * KEYS_PER_ROUND / 2 + KEYS_PER_ROUND;
            for (int i = 0; i < last; i += 97) {
                int writtenBy = Math.min(round, i / (KEYS_PER_ROUND / 2));
                assertEquals(new String(value(writtenBy, i), StandardCharsets.UTF_8),
                        new String(s.get(key(i)), StandardCharsets.UTF_8), "key " + i + " after round " + round);
            }
        }
    }

    private Process start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("child.log").toFile())
                .start();
    }

    /** Runs the command to its end; returns its run time in milliseconds. */
    private long runToEnd(String... args) throws Exception {
        long started = System.nanoTime();
        Process p = start(args);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("child.log")));
        return (System.nanoTime() - started) / 1_000_000;
    }

    /**
     * Starts the command, waits until {@code begun} exists (the command has started writing), then
     * kills it (SIGKILL) {@code delayMillis} later; returns whether it was still running then.
     */
    private boolean runAndKill(Path begun, long delayMillis, String... args) throws Exception {
        Process p = start(args);
        while (!Files.exists(begun) && p.isAlive()) {
            Thread.sleep(1);
        }
        boolean finished = p.waitFor(delayMillis, TimeUnit.MILLISECONDS);
        if (!finished) {
            p.destroyForcibly();
            p.waitFor(60, TimeUnit.SECONDS);
        }
        return !finished;
    }

    /** The id the next backup takes: one more than any private directory's. */
    private static long nextId(Path backups) {
        String[] priv = backups.resolve("private").toFile().list();
        long max = 0;
        for (String n : priv == null ? new String[0] : priv) {
            max = Math.max(max, Long.parseLong(n));
        }
        return max + 1;
    }

    /** Whether a killed backup left files of its own (more private directories than backups listed). */
    private static boolean unfinished(Path backups, int listed) {
        String[] priv = backups.resolve("private").toFile().list();
        String[] shared = backups.resolve("shared").toFile().list();
        boolean temp = shared != null && java.util.Arrays.stream(shared).anyMatch(n -> n.endsWith(".tmp"));
        return priv != null && priv.length > listed || temp;
    }

    @Test
    void killedBackupsAndRestoresLeaveUsableBackupsAndCompleteOrRefusedTargets() throws Exception {
        long seed = System.nanoTime();
        System.out.println("BackupKillIT seed " + seed);
        Random random = new Random(seed);
        Path db = tmp.resolve("db");
        Path backups = tmp.resolve("backups");
        writeRound(db, 0);
        runToEnd("--data", db.toString(), "backup", "--to", backups.toString());
        int killed = 0;
        int midBackup = 0;
        List<Integer> roundOfBackup = new ArrayList<>(List.of(0));
        for (int round = 1; round <= ROUNDS; round++) {
            writeRound(db, round);
            // The child JVM's start-up is most of a run: the kill comes once the backup has begun.
            Path begun = backups.resolve("private").resolve(Long.toString(nextId(backups)));
            if (runAndKill(begun, random.nextLong(KILL_WINDOW_MILLIS), "--data", db.toString(), "backup", "--to",
                    backups.toString())) {
                killed++;
            }
            List<BackupInfo> listed = StoreBackup.list(backups);
            if (unfinished(backups, listed.size())) {
                midBackup++;
            }
            if (listed.size() > roundOfBackup.size()) {
                roundOfBackup.add(round);
            }
            assertEquals(roundOfBackup.size(), listed.size(), "backups listed after round " + round);
            for (int b = 0; b < listed.size(); b++) {
                Path target = tmp.resolve("check-" + round + "-" + b);
                StoreBackup.restore(backups, listed.get(b).id(), target);
                checkRound(target, roundOfBackup.get(b));
            }
        }
        runToEnd("--data", db.toString(), "backup", "--to", backups.toString());
        Path last = tmp.resolve("last");
        StoreBackup.restore(backups, -1, last);
        checkRound(last, ROUNDS);
        System.out.println("BackupKillIT: " + killed + " of " + ROUNDS + " backups killed while running, " + midBackup
                + " of them after writing into the backup directory");

        for (int k = 0; k < ROUNDS; k++) {
            Path target = tmp.resolve("killed-restore-" + k);
            runAndKill(target, random.nextLong(KILL_WINDOW_MILLIS), "--data", target.toString(), "restore", "--from",
                    backups.toString());
            if (Files.exists(target.resolve("CURRENT"))) {
                checkRound(target, ROUNDS);
            } else if (Files.exists(target) && target.toFile().list().length > 0) {
                Process again = start("--data", target.toString(), "restore", "--from", backups.toString());
                assertTrue(again.waitFor(60, TimeUnit.SECONDS));
                assertEquals(ExitCodes.USAGE, again.exitValue(), "a half-restored target is refused");
                assertFalse(Files.exists(target.resolve("CURRENT")));
            }
        }
    }
}
