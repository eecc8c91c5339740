package io.bloomstore.core.datamodel;

import static io.bloomstore.core.datamodel.MergeOperatorTest.b;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Power loss in the middle of batches of merges and puts: random batches (each adds 1 to a total
 * counter and to one of seven counters with {@code int64Add} operands, and puts a marker of its
 * own), some synced, while small memtables flush and compact; then a tearing crash at a random
 * moment, a reopen, and a check that the store holds exactly the first k batches, whole, for some
 * k at or past the last synced one: every counter agrees with the markers. Several seeds, each
 * printed on failure.
 */
class DataModelCrashTest {
    private static final Path DIR = Path.of("/crash/store");
    private static final int COUNTERS = 7;

    @Test
    void batchesOfMergesAreAllThereOrNotAtAllAfterAPowerLoss() throws Exception {
        long base = Long.getLong("bloomstore.seed", System.nanoTime());
        for (int round = 0; round < 12; round++) {
            long seed = base + round;
            try {
                run(seed);
            } catch (Throwable t) {
                throw new AssertionError("crash round failed with seed " + seed + "; replay with -Dbloomstore.seed="
                        + seed, t);
            }
        }
    }

    private static void run(long seed) throws Exception {
        Random rnd = new Random(seed);
        StoreOptions options = StoreOptions.builder().mergeOperator(MergeOperators.int64Add()).memtableBytes(4 * 1024)
                .l0Triggers(2, 3, 4).baseLevelBytes(16 * 1024).targetFileBytes(4 * 1024).blockSize(256).build();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), seed);
        Store store = Store.open(fs, DIR, options);
        int batches = 50 + rnd.nextInt(250);
        int lastSynced = -1;
        List<Integer> counterOf = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            int c = rnd.nextInt(COUNTERS);
            counterOf.add(c);
            WriteBatch batch = new WriteBatch().merge(b("total"), MergeOperators.int64(1))
                    .put(b(String.format("marker%05d", i)), b("x")).merge(b("c" + c), MergeOperators.int64(1));
            boolean sync = rnd.nextInt(8) == 0;
            store.write(batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            if (sync) {
                lastSynced = i;
            }
        }
        FaultInjectionFileSystem after = fs.crashTearing();
        try {
            store.close();
        } catch (Exception expected) {
            // The crashed view refuses the close's writes.
        }
        try (Store reopened = Store.open(after, DIR, options)) {
            byte[] totalBytes = reopened.get(b("total"));
            long total = totalBytes == null ? 0 : MergeOperators.int64(totalBytes);
            assertTrue(total >= lastSynced + 1 && total <= batches,
                    "total " + total + " outside [" + (lastSynced + 1) + ", " + batches + "]");
            long[] expected = new long[COUNTERS];
            for (int i = 0; i < batches; i++) {
                boolean marker = reopened.get(b(String.format("marker%05d", i))) != null;
                if (marker != i < total) {
                    throw new AssertionError("batch " + i + " marker " + (marker ? "present" : "absent")
                            + " but the total counts " + total + " batches");
                }
                if (i < total) {
                    expected[counterOf.get(i)]++;
                }
            }
            long[] actual = new long[COUNTERS];
            for (int c = 0; c < COUNTERS; c++) {
                byte[] v = reopened.get(b("c" + c));
                actual[c] = v == null ? 0 : MergeOperators.int64(v);
            }
            if (!Arrays.equals(expected, actual)) {
                throw new AssertionError("counters " + Arrays.toString(actual) + ", expected "
                        + Arrays.toString(expected) + " for the first " + total + " batches");
            }
            reopened.compact();
            byte[] again = reopened.get(b("total"));
            assertTrue(total == (again == null ? 0 : MergeOperators.int64(again)), "total changed by a compaction");
        }
    }
}
