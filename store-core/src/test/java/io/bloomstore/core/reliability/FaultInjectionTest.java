package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store on a failing disk ({@link FaultInjectionFileSystem}): a full disk, failing writes and
 * fsyncs on the WAL, the tables and the MANIFEST, failing reads, then a machine crash (unsynced
 * data lost, or the last writes torn at a random byte). Promises checked:
 * <ul>
 *   <li>the writer whose write failed gets the {@link IOException};
 *   <li>after a write-path failure the store is read-only: later writes fail with an error naming
 *       the first failure, reads go on and return exactly the acknowledged writes;
 *   <li>a read failure is an {@link IOException}, never a wrong value;
 *   <li>reopening on a healed disk recovers a prefix of the history holding every synced
 *       acknowledged write; reopening on a still-failing disk fails cleanly or recovers the same.
 * </ul>
 * The randomized sweep prints its seeds; each run is deterministic given the seed.
 */
class FaultInjectionTest {
    private static final Path DIR = Path.of("/faults/store");
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256)
            .blockCacheBytes(0).build();

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void diskFullOnTheWalFailsTheWriterThenTheStoreIsReadOnly() throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 1);
        Store store = Store.open(fs, DIR, OPTIONS);
        store.put(b("a"), b("1"), WriteOptions.SYNC);
        fs.onlyFiles(p -> p.toString().endsWith(".log")).failWritesAfterBytes(10);
        IOException e = assertThrows(IOException.class, () -> store.put(b("b"), b("2"), WriteOptions.SYNC));
        assertTrue(e.getMessage().contains(FaultInjectionFileSystem.DISK_FULL), e.getMessage());
        fs.heal();
        IOException refused = assertThrows(IOException.class, () -> store.put(b("c"), b("3")));
        assertTrue(refused.getMessage().contains("refuses writes") && refused.getMessage().contains("No space"),
                refused.getMessage());
        assertThrows(IOException.class, store::flush);
        assertArrayEquals(b("1"), store.get(b("a")));
        assertNull(store.get(b("b")), "the failed write is not visible");
        // Close releases everything, then reports that the store failed before it: the WAL was not synced.
        IOException closeFailure = assertThrows(IOException.class, store::close);
        assertTrue(closeFailure.getMessage().contains("failed before close"), closeFailure.getMessage());
        try (Store reopened = Store.open(fs.crashTearing(), DIR, OPTIONS)) {
            assertArrayEquals(b("1"), reopened.get(b("a")));
            assertNull(reopened.get(b("b")), "a torn record is dropped");
            reopened.put(b("c"), b("3"));
            assertArrayEquals(b("3"), reopened.get(b("c")), "a healed disk takes writes again");
        }
    }

    @Test
    void failedWalFsyncFailsTheSyncingWriter() throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 2);
        Store store = Store.open(fs, DIR, OPTIONS);
        store.put(b("a"), b("1"), WriteOptions.SYNC);
        fs.onlyFiles(p -> p.toString().endsWith(".log")).failSyncsAfter(0);
        IOException e = assertThrows(IOException.class, () -> store.put(b("b"), b("2"), WriteOptions.SYNC));
        assertTrue(e.getMessage().contains(FaultInjectionFileSystem.IO_ERROR), e.getMessage());
        assertThrows(IOException.class, () -> store.put(b("c"), b("3")));
        FaultInjectionFileSystem after = fs.crash();
        after.heal();
        try (Store reopened = Store.open(after, DIR, OPTIONS)) {
            assertArrayEquals(b("1"), reopened.get(b("a")));
            assertNull(reopened.get(b("b")), "never synced, lost in the crash");
        }
    }

    @Test
    void failedFlushKeepsEveryWriteReadableAndRecoverable() throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 3);
        Store store = Store.open(fs, DIR, OPTIONS);
        for (int i = 0; i < 50; i++) {
            store.put(b("k" + i), b("v" + i), WriteOptions.SYNC);
        }
        fs.onlyFiles(p -> p.toString().endsWith(".sst")).failWritesAfterBytes(100);
        IOException e = assertThrows(IOException.class, store::flush);
        assertTrue(e.getMessage().contains(FaultInjectionFileSystem.DISK_FULL), e.getMessage());
        assertThrows(IOException.class, () -> store.put(b("x"), b("y")), "read-only after a background error");
        for (int i = 0; i < 50; i++) {
            assertArrayEquals(b("v" + i), store.get(b("k" + i)), "still readable from the memtable");
        }
        // Close releases everything, then reports that the store failed before it: the WAL was not synced.
        IOException closeFailure = assertThrows(IOException.class, store::close);
        assertTrue(closeFailure.getMessage().contains("failed before close"), closeFailure.getMessage());
        fs.heal();
        try (Store reopened = Store.open(fs.crash(), DIR, OPTIONS)) {
            for (int i = 0; i < 50; i++) {
                assertArrayEquals(b("v" + i), reopened.get(b("k" + i)));
            }
        }
    }

    @Test
    void failedManifestSyncLeavesAStoreThatReopens() throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 4);
        Store store = Store.open(fs, DIR, OPTIONS);
        fs.onlyFiles(p -> p.getFileName().toString().startsWith("MANIFEST")).failSyncsAfter(0);
        int acknowledged = 0;
        try {
            for (int i = 0; i < 2000; i++) {
                store.put(b("k" + i), b("v" + i), WriteOptions.SYNC);
                acknowledged++;
            }
            fail("the first flush's MANIFEST sync fails, so writes must be refused soon");
        } catch (IOException e) {
            assertTrue(e.getMessage().contains("MANIFEST"), e.getMessage());
        }
        assertTrue(acknowledged > 0);
        FaultInjectionFileSystem after = fs.crashTearing();
        after.heal();
        try (Store reopened = Store.open(after, DIR, OPTIONS)) {
            for (int i = 0; i < acknowledged; i++) {
                assertArrayEquals(b("v" + i), reopened.get(b("k" + i)), "key " + i);
            }
            assertNull(reopened.get(b("k" + acknowledged)), "the refused write");
        }
    }

    @Test
    void failingReadsNeverReturnAWrongValue() throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 5);
        // No background compaction: its table reads would meet the injected faults too (and, as a
        // write-path failure, make the store read-only), so the count of faults would not be the reads'.
        try (Store store = Store.open(fs, DIR, OPTIONS.toBuilder().autoCompaction(false).build())) {
            for (int i = 0; i < 500; i++) {
                store.put(b("k" + i), b("v" + i));
            }
            store.flush();
            fs.onlyFiles(p -> p.toString().endsWith(".sst")).failRandomly(0, 0, 0.3);
            int errors = 0;
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 600; i++) {
                    try {
                        byte[] v = store.get(b("k" + i));
                        assertArrayEquals(i < 500 ? b("v" + i) : null, v, "key " + i);
                    } catch (IOException e) {
                        assertTrue(e.getMessage().contains(FaultInjectionFileSystem.IO_ERROR), e.getMessage());
                        errors++;
                    }
                }
            }
            assertTrue(errors > 0 && fs.injectedFaults() == errors, errors + " errors, " + fs.injectedFaults());
            fs.heal();
            store.put(b("after"), b("reads failed"));
            assertArrayEquals(b("reads failed"), store.get(b("after")), "read errors do not stop writes");
        }
    }

    @Test
    void aCompactionWhoseManifestSyncFailsLeavesItsOutputsForRecovery() throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 6);
        TreeMap<String, String> model = new TreeMap<>();
        Store store = Store.open(fs, DIR, OPTIONS.toBuilder().autoCompaction(false).build());
        for (int table = 0; table < 3; table++) {
            for (int i = 0; i < 100; i++) {
                String key = "k" + (i * 7 + table) % 150;
                store.put(b(key), b("t" + table + "-" + i));
                model.put(key, "t" + table + "-" + i);
            }
            store.flush();
        }
        fs.onlyFiles(p -> p.getFileName().toString().startsWith("MANIFEST")).failSyncsAfter(0);
        IOException e = assertThrows(IOException.class, store::compact);
        assertTrue(e.getMessage().contains(FaultInjectionFileSystem.IO_ERROR), e.getMessage());
        assertEquals(model, contents(store), "reads go on after the failed compaction");
        IOException later = assertThrows(IOException.class, () -> store.put(b("late"), b("write")),
                "read-only: nothing may follow a possibly torn MANIFEST edit");
        assertTrue(later.getMessage().contains(FaultInjectionFileSystem.IO_ERROR), later.getMessage());
        // Close releases everything, then reports that the store failed before it: the WAL was not synced.
        IOException closeFailure = assertThrows(IOException.class, store::close);
        assertTrue(closeFailure.getMessage().contains("failed before close"), closeFailure.getMessage());
        // The process ends after the failed fsync, but the edit had reached the file: it names the
        // compaction's outputs, which must still be there.
        fs.heal();
        try (Store reopened = Store.open(fs, DIR, OPTIONS)) {
            assertEquals(model, contents(reopened));
        }
    }

    /** With one compaction at a time and with three side by side. */
    @ParameterizedTest(name = "maxBackgroundJobs {0}")
    @ValueSource(ints = {1, 3})
    void randomFaultsThenCrashRecoverAPrefixWithEverySyncedWrite(int jobs) throws IOException {
        sweep(30, 300, OPTIONS.toBuilder().maxBackgroundJobs(jobs).parallelCompactionTrigger(0).build());
    }

    @Test
    @Tag("stress")
    void randomFaultsThenCrashManySeeds() throws IOException {
        sweep(2000, 600, OPTIONS.toBuilder().maxBackgroundJobs(3).parallelCompactionTrigger(0).build());
    }

    private static void sweep(int seeds, int operations, StoreOptions options) throws IOException {
        long base = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("FaultInjectionTest sweep base seed " + base + " (" + seeds + " seeds, maxBackgroundJobs "
                + options.maxBackgroundJobs() + ")");
        int faults = 0;
        for (int s = 0; s < seeds; s++) {
            faults += runOne(base + s, operations, options) ? 1 : 0;
        }
        System.out.println("FaultInjectionTest: " + seeds + " runs, " + faults + " hit a fault before the crash");
        assertTrue(faults > seeds / 4, "faults were injected in " + faults + " of " + seeds + " runs");
    }

    /** One run: random writes until a fault (or the end), a crash, then reopening; true if a fault hit. */
    private static boolean runOne(long seed, int operations, StoreOptions options) throws IOException {
        Random rnd = new Random(seed);
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), seed);
        Store store = Store.open(fs, DIR, options);
        List<TreeMap<String, String>> models = new ArrayList<>();
        TreeMap<String, String> model = new TreeMap<>();
        models.add(new TreeMap<>(model));
        int lastSynced = 0;
        boolean faulted = false;
        int acked = 0;
        fs.failRandomly(0.004, 0.02, 0).failWritesAfterBytes(rnd.nextInt(200_000));
        String where = "seed " + seed;
        for (int op = 1; op <= operations; op++) {
            boolean sync = rnd.nextInt(8) == 0;
            WriteBatch batch = new WriteBatch();
            TreeMap<String, String> next = new TreeMap<>(model);
            int size = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(6) : 1;
            for (int i = 0; i < size; i++) {
                String key = "key" + rnd.nextInt(150);
                if (rnd.nextInt(6) == 0) {
                    batch.delete(b(key));
                    next.remove(key);
                } else {
                    String value = "op" + op + "-" + key + "-" + "x".repeat(rnd.nextInt(60));
                    batch.put(b(key), b(value));
                    next.put(key, value);
                }
            }
            if (rnd.nextInt(50) == 0) {
                try {
                    store.flush();
                } catch (IOException e) {
                    faulted = true;
                    break;
                }
            }
            try {
                store.write(batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            } catch (IOException e) {
                // The failed write may or may not be in the WAL: recovery may include it.
                faulted = true;
                models.add(next);
                break;
            }
            model = next;
            models.add(model);
            acked = op;
            if (sync) {
                lastSynced = op;
            }
        }
        int acknowledged = acked;
        if (faulted) {
            assertThrows(IOException.class, () -> store.put(b("late"), b("write")), where + ": read-only");
            assertEquals(models.get(acknowledged), contents(store), where + ": live reads see the acknowledged writes");
        }
        FaultInjectionFileSystem after = rnd.nextBoolean() ? fs.crashTearing() : fs.crash();
        int recovered = -1;
        if (rnd.nextBoolean()) {
            // Reopening on a disk that still fails must fail cleanly or recover correctly.
            try (Store s = Store.open(after, DIR, options)) {
                recovered = prefix(contents(s), models, lastSynced, where + " (faulty reopen)");
            } catch (IOException e) {
                recovered = -1;
            }
            after = after.crash();
        }
        after.heal();
        try (Store s = Store.open(after, DIR, options)) {
            int k = prefix(contents(s), models, lastSynced, where);
            if (recovered >= 0) {
                assertEquals(recovered, k, where + ": what one open recovered the next keeps");
            }
        }
        return faulted;
    }

    /** The index k ≥ lastSynced with models[k] equal to the recovered contents, or a failure. */
    private static int prefix(TreeMap<String, String> recovered, List<TreeMap<String, String>> models, int lastSynced,
                              String where) {
        for (int k = models.size() - 1; k >= lastSynced; k--) {
            if (models.get(k).equals(recovered)) {
                return k;
            }
        }
        fail(where + ": recovered state (" + recovered.size() + " keys) is no prefix of the history at or after"
                + " the last synced write " + lastSynced + " of " + (models.size() - 1));
        return -1;
    }

    private static TreeMap<String, String> contents(Store store) {
        TreeMap<String, String> out = new TreeMap<>();
        try (var it = store.iterator(null, null)) {
            it.forEachRemaining(kv -> out.put(new String(kv.key(), StandardCharsets.UTF_8),
                    new String(kv.value(), StandardCharsets.UTF_8)));
        }
        return out;
    }
}
