package io.bloomstore.cli.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.Store;
import io.bloomstore.core.WriteOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bloomstore stress} for a few cycles with power loss (the short run CI makes; the long one
 * is a command, see docs/reliability.md), and its check catching a lost acknowledged write.
 */
class StressCommandTest {
    @TempDir
    Path tmp;

    @Test
    void aFewPowerLossCyclesLoseNothing() throws IOException {
        Path dir = tmp.resolve("run");
        Path json = tmp.resolve("stress.json");
        CliRunner.Result r = CliRunner.run("stress", "--data", dir.toString(), "--cycles", "3", "--threads", "3",
                "--readers", "1", "--keys", "600", "--power-loss", "--seed", "42", "--min-run-millis", "300",
                "--max-run-millis", "700", "--json", json.toString());
        System.out.println(r.out() + r.err());
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        JsonNode figures = new ObjectMapper().readTree(json.toFile());
        assertEquals(3, figures.get("cycles").asInt());
        assertEquals(0, figures.get("lostWrites").asLong());
        assertTrue(figures.get("acknowledgedWrites").asLong() > 0, figures.toString());
        assertTrue(figures.get("acknowledgedSyncWrites").asLong() > 0, figures.toString());
        assertEquals(3 * 600, figures.get("verifiedKeys").asLong());
        assertTrue(figures.get("unsyncedBytesDropped").asLong() > 0, "power loss dropped something: " + figures);
        assertTrue(figures.has("closesDuringCompaction"), "every cycle closes the store during a compaction");
        assertTrue(figures.has("seconds"));
    }

    /**
     * Power-loss cycles whose child dies inside a MANIFEST sync, the edit torn at a random byte by
     * the power loss: every store opens by itself with every acknowledged synced write. Seed 7; a
     * run where no child reached a MANIFEST sync tests nothing, so at least one must have.
     */
    @Test
    void tornManifestEditsLoseNothing() throws IOException {
        Path dir = tmp.resolve("torn");
        Path json = tmp.resolve("torn.json");
        CliRunner.Result r = CliRunner.run("stress", "--data", dir.toString(), "--cycles", "4", "--threads", "2",
                "--readers", "1", "--keys", "2000", "--power-loss", "--tear-manifest", "--seed", "7",
                "--min-run-millis", "1500", "--max-run-millis", "3000", "--json", json.toString());
        System.out.println(r.out() + r.err());
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        JsonNode figures = new ObjectMapper().readTree(json.toFile());
        assertEquals(0, figures.get("lostWrites").asLong());
        assertTrue(figures.get("tornManifestEdits").asLong() >= 1, "no child died inside a MANIFEST sync: " + figures);
    }

    @Test
    void tearingManifestsNeedsPowerLoss() throws IOException {
        CliRunner.Result r = CliRunner.run("stress", "--data", tmp.resolve("x").toString(), "--tear-manifest");
        assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    }

    @Test
    void aNonEmptyDirectoryIsRefused() throws IOException {
        Files.writeString(tmp.resolve("something"), "x");
        CliRunner.Result r = CliRunner.run("stress", "--data", tmp.toString(), "--cycles", "1");
        assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    }

    @Test
    void theCheckFindsALostAcknowledgedSyncWrite() throws IOException {
        Path store = tmp.resolve("store");
        Path ops = tmp.resolve("ops");
        Files.createDirectories(ops);
        StressValues.ValueId kept = new StressValues.ValueId(1, 0, 1, 0, 10);
        StressValues.ValueId lost = new StressValues.ValueId(1, 0, 2, 2, 10);
        try (OpLog log = OpLog.create(ops, 0)) {
            log.intent(1, true, new int[] {0}, new int[] {10});
            log.acknowledged(1);
            log.intent(2, true, new int[] {2}, new int[] {10});
            log.acknowledged(2);
        }
        StressValues.ValueId[] baseline = new StressValues.ValueId[4];
        try (Store s = Store.open(store, StressChild.options())) {
            io.bloomstore.core.Keyspace mirror = s.keyspace(StressChild.MIRROR);
            s.put(StressValues.key(0), StressValues.value(kept), WriteOptions.SYNC);
            s.put(mirror, StressValues.key(0), StressValues.value(kept), WriteOptions.SYNC);
            CycleCheck.Outcome o = CycleCheck.check(s, ops, 2, 1, true, baseline);
            assertEquals(1, o.lost(), o.examples().toString());
            assertEquals(2, o.acknowledgedSync());
            s.put(StressValues.key(2), StressValues.value(lost), WriteOptions.SYNC);
            s.put(mirror, StressValues.key(2), StressValues.value(lost), WriteOptions.SYNC);
            baseline = new StressValues.ValueId[4];
            assertTrue(CycleCheck.check(s, ops, 2, 1, true, baseline).clean());
            // A batch split across keyspaces: the mirror keyspace lacks key 0's value.
            s.delete(mirror, StressValues.key(0));
            baseline = new StressValues.ValueId[4];
            CycleCheck.Outcome split = CycleCheck.check(s, ops, 2, 1, true, baseline);
            assertEquals(1, split.torn(), split.examples().toString());
            assertTrue(split.examples().toString().contains("split across keyspaces"), split.examples().toString());
            s.put(mirror, StressValues.key(0), StressValues.value(kept), WriteOptions.SYNC);
            byte[] torn = StressValues.value(lost);
            torn[torn.length - 1] ^= 1;
            s.put(StressValues.key(2), torn, WriteOptions.SYNC);
            s.put(mirror, StressValues.key(2), torn, WriteOptions.SYNC);
            baseline = new StressValues.ValueId[4];
            CycleCheck.Outcome t = CycleCheck.check(s, ops, 2, 1, true, baseline);
            assertEquals(1, t.torn(), t.examples().toString());
        }
    }
}
