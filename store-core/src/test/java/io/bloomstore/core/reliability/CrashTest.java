package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.LockedException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test, after RocksDB's: a child JVM ({@link CrashWriter}) writes single puts and
 * batches, some synced, appending what was acknowledged to an ack file; this JVM kills it with SIGKILL at a
 * random moment (during recovery, during writes, during flushes), verifies every file
 * ({@link StoreVerifier}), reopens the store and checks with {@link CrashHistory} that it holds
 * exactly the first {@code k} operations, where {@code k} covers every acknowledged operation (a
 * killed process loses nothing the operating system has, synced or not) and at most the one
 * operation in flight; then the next child continues from {@code k}. The writer's options make
 * flushes and background compactions frequent, so kills land in them too. The "held" runs delay
 * the child's table creation so that flushes fall behind and kills leave several unflushed WAL
 * segments, which recovery must replay without a hole. A short run is in the normal suite, a long
 * one under {@code -Pstress}. Also: a store held open by another process is locked, and processes
 * racing to create and write the same new store all end up in one store with every acknowledged
 * write.
 */
class CrashTest {
    @TempDir
    Path tmp;

    /** With three compactions allowed side by side (the held runs below use the default, two). */
    @Test
    void killedWriterLosesNothingAcknowledged() throws Exception {
        run(4, false, 3);
    }

    @Test
    void killedWriterWithSeveralUnflushedSegments() throws Exception {
        run(3, true, 2);
    }

    /**
     * With {@code walBufferBytes} a kill may lose acknowledged writes that did not sync, but only
     * the newest, fewer than the buffer holds, and never one a sync write acknowledged or one
     * before it: what recovery finds is still a prefix.
     */
    @Test
    void killedBufferedWriterLosesOnlyItsBuffer() throws Exception {
        run(4, false, 2, WAL_BUFFER);
    }

    @Test
    @Tag("stress")
    void killedBufferedWriterManyCycles() throws Exception {
        run(Integer.getInteger("bloomstore.crash.cycles", 200) / 4, false, 2, WAL_BUFFER);
    }

    @Test
    @Tag("stress")
    void killedWriterManyCycles() throws Exception {
        run(Integer.getInteger("bloomstore.crash.cycles", 200), false, 3);
    }

    @Test
    @Tag("stress")
    void killedWriterWithSeveralUnflushedSegmentsManyCycles() throws Exception {
        run(Integer.getInteger("bloomstore.crash.cycles", 200) / 4, true, 3);
    }

    /** The buffered runs' {@code walBufferBytes}. */
    private static final int WAL_BUFFER = 4096;
    /**
     * The fewest bytes one operation's WAL record takes (header, sequence and count, one put of a
     * 12-byte key with its 1-byte value and their lengths and type), so a buffer of {@code B} bytes
     * holds at most {@code B / MIN_RECORD_BYTES} operations.
     */
    private static final int MIN_RECORD_BYTES = 7 + 12 + 3 + 12 + 1;

    private void run(int cycles, boolean held, int jobs) throws Exception {
        run(cycles, held, jobs, 0);
    }

    private void run(int cycles, boolean held, int jobs, int walBuffer) throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("CrashTest seed " + seed + ", " + cycles + " cycles, maxBackgroundJobs " + jobs
                + ", walBufferBytes " + walBuffer);
        long lostToBuffer = 0;
        Random rnd = new Random(seed);
        CrashHistory history = new CrashHistory(seed);
        Path dir = tmp.resolve("crash");
        long recovered = 0;
        long acknowledged = 0;
        int killedWhileWriting = 0;
        long childCompactions = 0;
        int deepestLevel = 0;
        int mostSegments = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            long lastAck;
            Path acks = tmp.resolve("acks-" + cycle);
            try (ChildJvm child = ChildJvm.start(held ? "write-held" : "write", dir.toString(), Long.toString(seed),
                    Long.toString(recovered), acks.toString(), Integer.toString(jobs), Integer.toString(walBuffer))) {
                if (rnd.nextInt(4) == 0) {
                    Thread.sleep(rnd.nextInt(1000));
                } else {
                    assertTrue(child.awaitOpen(60_000), "child opened the store");
                    Thread.sleep(50 + rnd.nextInt(700));
                    killedWhileWriting++;
                }
                assertTrue(child.isAlive(), "the writer runs until killed");
                child.kill();
                lastAck = ChildJvm.lastAck(acks);
                childCompactions += child.compactions();
            }
            if (Files.isDirectory(dir)) {
                try (var files = Files.list(dir)) {
                    mostSegments = Math.max(mostSegments, (int) files.filter(p -> p.toString().endsWith(".log")).count());
                }
            }
            if (Files.exists(dir.resolve("CURRENT"))) {
                VerifyReport report = StoreVerifier.verify(dir);
                assertTrue(report.clean(), "cycle " + cycle + ", seed " + seed + ": " + report.errors());
            } else {
                // Killed before the new store's CURRENT existed: open never returned, nothing was written.
                assertTrue(lastAck < 0, "cycle " + cycle + ": acknowledged writes but the store was never created");
            }
            long k;
            try (Store store = Store.open(dir, CrashWriter.options(jobs, walBuffer))) {
                k = history.recoveredPrefix(store);
                for (StoreStats.LevelStats l : store.stats().levels()) {
                    if (l.files() > 0) {
                        deepestLevel = Math.max(deepestLevel, l.level());
                    }
                }
            }
            String where = "cycle " + cycle + ", seed " + seed + ": recovered " + k + " operations, last ack "
                    + lastAck;
            assertTrue(k >= recovered, where + ", earlier recovered " + recovered);
            if (walBuffer == 0) {
                assertTrue(k >= lastAck + 1, where + ": an acknowledged write is lost");
            } else {
                long lastSynced = -1;
                for (long i = recovered; i <= lastAck; i++) {
                    if (history.synced(i)) {
                        lastSynced = i;
                    }
                }
                assertTrue(k >= lastSynced + 1, where + ": a write before a synced one (" + lastSynced + ") is lost");
                assertTrue(k >= lastAck + 1 - walBuffer / MIN_RECORD_BYTES, where
                        + ": more acknowledged writes lost than " + walBuffer + " buffered bytes hold");
                lostToBuffer += Math.max(0, lastAck + 1 - k);
            }
            assertTrue(k <= Math.max(lastAck, recovered - 1) + 2, where + ": more than the one write in flight");
            acknowledged += Math.max(0, lastAck + 1 - recovered);
            recovered = k;
        }
        if (walBuffer > 0) {
            System.out.printf("CrashTest: %d acknowledged writes lost with the WAL buffers (at most %d a kill)%n",
                    lostToBuffer, walBuffer / MIN_RECORD_BYTES);
        }
        System.out.printf("CrashTest: %d cycles survived (%d killed while writing), %d operations recovered, "
                + "%d acknowledged in the runs, %s; %d compactions completed in the killed writers, "
                + "tables down to level %d; at most %d WAL segments at a kill%n", cycles, killedWhileWriting,
                recovered, acknowledged, walBuffer == 0 ? "nothing lost" : "none lost but the newest buffered", childCompactions, deepestLevel, mostSegments);
        if (held && cycles >= 10) {
            assertTrue(mostSegments >= 3, "kills left several unflushed WAL segments");
        }
        if (cycles >= 10 && !held) {
            assertTrue(childCompactions > 0, "the writers compacted while they could be killed");
            assertTrue(deepestLevel >= 2, "compactions reached level 2");
        }
    }

    @Test
    void processesRacingToCreateOneStoreKeepEveryAcknowledgedWrite() throws Exception {
        int processes = 5;
        int writes = 20;
        Path dir = tmp.resolve("raced");
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int p = 0; p < processes; p++) {
                children.add(ChildJvm.start("race", dir.toString(), "p" + p, tmp.resolve("race-acks-" + p).toString(),
                        Integer.toString(writes)));
            }
            for (ChildJvm child : children) {
                assertTrue(child.awaitExit(180_000), "a racing writer finished");
                assertEquals(0, child.exitCode(), "a racing writer failed (see its stderr)");
            }
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
        try (Store store = Store.open(dir, CrashWriter.OPTIONS)) {
            for (int p = 0; p < processes; p++) {
                long acked = ChildJvm.lastAck(tmp.resolve("race-acks-" + p));
                assertEquals(writes - 1, acked, "process " + p + " acknowledged every write");
                for (int i = 0; i <= acked; i++) {
                    assertArrayEquals(new byte[] {(byte) i}, store.get(("p" + p + "-" + i).getBytes(
                            StandardCharsets.US_ASCII)), "process " + p + ", write " + i);
                }
            }
        }
        VerifyReport report = StoreVerifier.verify(dir);
        assertTrue(report.clean(), report.problems().toString());
    }

    @Test
    void storeHeldByAnotherProcessIsLocked() throws Exception {
        Path dir = tmp.resolve("held");
        try (ChildJvm child = ChildJvm.start("hold", dir.toString())) {
            assertTrue(child.awaitOpen(60_000), "child opened the store");
            assertThrows(LockedException.class, () -> Store.open(dir, CrashWriter.OPTIONS));
            assertThrows(LockedException.class, () -> StoreVerifier.verify(dir));
            child.kill();
        }
        try (Store store = Store.open(dir, CrashWriter.OPTIONS)) {
            store.put(new byte[] {1}, new byte[] {1});
        }
    }
}
