package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Store#checkpoint}: consistent, openable copies of a store that writers and compactions keep changing. */
class CheckpointTest {
    private static final int WRITERS = 3;

    @TempDir
    Path tmp;

    private static byte[] key(int thread, long i) {
        return String.format("w%d-%08d", thread, i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int thread, long i) {
        return ("value " + thread + "/" + i + " " + "x".repeat((int) (i % 97))).getBytes(StandardCharsets.UTF_8);
    }

    private static StoreOptions busyOptions() {
        // Small memtables and tables: flushes and compactions run all the time under the writers.
        return StoreOptions.builder().memtableBytes(64 << 10).targetFileBytes(64 << 10).build();
    }

    /**
     * Writers put keys w{t}-{i} in order, each thread on its own; checkpoints are taken while they
     * run. Each checkpoint must hold every write acknowledged before its call began, and, per
     * thread, a gap-free prefix of its writes (a prefix of history), and open as a store of its own.
     */
    @Test
    void checkpointsWhileWritersAndCompactionsRunHoldAPrefixWithEveryAcknowledgedWrite() throws Exception {
        long seed = System.nanoTime();
        System.out.println("CheckpointTest seed " + seed);
        Random random = new Random(seed);
        Path dir = tmp.resolve("store");
        AtomicLongArray acked = new AtomicLongArray(WRITERS);
        for (int t = 0; t < WRITERS; t++) {
            acked.set(t, -1);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<long[]> ackedBefore = new ArrayList<>();
        List<Path> targets = new ArrayList<>();
        List<CheckpointReport> reports = new ArrayList<>();
        try (Store store = Store.open(dir, busyOptions())) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < WRITERS; t++) {
                int thread = t;
                Thread w = new Thread(() -> {
                    try {
                        for (long i = 0; !stop.get(); i++) {
                            store.put(key(thread, i), value(thread, i));
                            acked.set(thread, i);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                w.start();
                threads.add(w);
            }
            for (int c = 0; c < 4; c++) {
                Thread.sleep(50 + random.nextInt(150));
                long[] before = new long[WRITERS];
                for (int t = 0; t < WRITERS; t++) {
                    before[t] = acked.get(t);
                }
                Path target = tmp.resolve("checkpoint-" + c);
                reports.add(store.checkpoint(target));
                ackedBefore.add(before);
                targets.add(target);
            }
            stop.set(true);
            for (Thread w : threads) {
                w.join();
            }
            assertNull(failure.get(), () -> "writer failed: " + failure.get());
            assertTrue(store.stats().flushes() > 0, "the test needs flushes running");
        }
        for (int c = 0; c < targets.size(); c++) {
            CheckpointReport report = reports.get(c);
            assertEquals(targets.get(c), report.target());
            try (Store copy = Store.open(targets.get(c), busyOptions())) {
                for (int t = 0; t < WRITERS; t++) {
                    long before = ackedBefore.get(c)[t];
                    long i = 0;
                    for (; ; i++) {
                        byte[] v = copy.get(key(t, i));
                        if (v == null) {
                            break;
                        }
                        assertArrayEquals(value(t, i), v, "checkpoint " + c + " key " + new String(key(t, i)));
                    }
                    assertTrue(i > before, "checkpoint " + c + " lost writer " + t + "'s acknowledged write " + before
                            + " (holds 0.." + (i - 1) + "), seed " + seed);
                    // A prefix: nothing after the first missing key.
                    try (StoreIterator it = copy.prefixIterator(("w" + t + "-").getBytes(StandardCharsets.UTF_8))) {
                        long count = 0;
                        while (it.hasNext()) {
                            it.next();
                            count++;
                        }
                        assertEquals(i, count, "checkpoint " + c + " holds writer " + t + "'s writes with a gap, seed "
                                + seed);
                    }
                }
            }
        }
    }

    @Test
    void checkpointLinksTablesAndIsIndependentOfTheStore() throws IOException {
        Path dir = tmp.resolve("store");
        Path target = tmp.resolve("copy");
        CheckpointReport report;
        try (Store store = Store.open(dir, StoreOptions.builder().memtableBytes(64 << 10).build())) {
            for (int i = 0; i < 5000; i++) {
                store.put(key(0, i), value(0, i));
            }
            store.flush();
            store.put(key(1, 0), value(1, 0));
            report = store.checkpoint(target);
            store.put(key(1, 1), value(1, 1));
            store.delete(key(0, 0));
            store.compact();
            store.awaitCompactions();
        }
        assertTrue(report.tables() > 0);
        assertTrue(report.linkedFiles() >= report.tables(), "tables are hard-linked on a local file system: " + report);
        assertTrue(report.copiedFiles() >= 1, "the WAL segment with the unflushed write is copied: " + report);
        try (Store copy = Store.open(target)) {
            assertArrayEquals(value(0, 0), copy.get(key(0, 0)));
            assertArrayEquals(value(0, 4999), copy.get(key(0, 4999)));
            assertArrayEquals(value(1, 0), copy.get(key(1, 0)));
            assertNull(copy.get(key(1, 1)));
            copy.put(key(2, 0), value(2, 0));
            copy.compact();
        }
        try (Store store = Store.open(dir)) {
            assertNull(store.get(key(0, 0)));
            assertNull(store.get(key(2, 0)), "writes to the checkpoint do not reach the store");
            assertArrayEquals(value(1, 1), store.get(key(1, 1)));
        }
    }

    @Test
    void refusesATargetInsideTheStoreOrNotEmptyAndAReadOnlyStore() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store store = Store.open(dir)) {
            store.put(key(0, 0), value(0, 0));
            IllegalArgumentException inside = assertThrows(IllegalArgumentException.class,
                    () -> store.checkpoint(dir.resolve("sub")));
            assertTrue(inside.getMessage().contains("inside the store directory"), inside.getMessage());
            Path full = Files.createDirectories(tmp.resolve("full"));
            Files.writeString(full.resolve("note.txt"), "mine");
            IllegalArgumentException notEmpty = assertThrows(IllegalArgumentException.class,
                    () -> store.checkpoint(full));
            assertTrue(notEmpty.getMessage().contains("not empty"), notEmpty.getMessage());
            assertEquals("mine", Files.readString(full.resolve("note.txt")));
            Path empty = Files.createDirectories(tmp.resolve("empty"));
            store.checkpoint(empty);
            assertTrue(Files.exists(empty.resolve("CURRENT")));
        }
        try (Store readOnly = Store.openReadOnly(dir)) {
            assertThrows(IllegalStateException.class, () -> readOnly.checkpoint(tmp.resolve("ro")));
        }
    }

    /** A full disk mid-checkpoint: a clear error, nothing left in the target, the store writes on. */
    @Test
    void fullDiskRemovesThePartialCheckpointAndTheStoreGoesOn() throws IOException {
        MemoryFileSystem memory = new MemoryFileSystem();
        Path dir = Path.of("/store");
        Path target = Path.of("/backup/cp");
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(memory, 1)
                .onlyFiles(p -> p.startsWith(target));
        try (Store store = Store.open(fs, dir, StoreOptions.builder().memtableBytes(32 << 10).build())) {
            for (int i = 0; i < 3000; i++) {
                store.put(key(0, i), value(0, i));
            }
            fs.failWritesAfterBytes(40_000);
            IOException e = assertThrows(IOException.class, () -> store.checkpoint(target));
            assertTrue(e.getMessage().contains(FaultInjectionFileSystem.DISK_FULL), e.getMessage());
            assertTrue(e.getMessage().contains("removed"), e.getMessage());
            assertFalse(memory.exists(target) && !memory.list(target).isEmpty(), "left " + (memory.exists(target)
                    ? memory.list(target) : List.of()));
            fs.failWritesAfterBytes(Long.MAX_VALUE);
            store.put(key(1, 0), value(1, 0));
            store.checkpoint(target);
        }
        try (Store copy = Store.open(memory, target, StoreOptions.defaults())) {
            assertArrayEquals(value(0, 2999), copy.get(key(0, 2999)));
            assertArrayEquals(value(1, 0), copy.get(key(1, 0)));
        }
    }
}
