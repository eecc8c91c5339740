package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Batches across keyspaces under a tearing power loss at a random moment, while small memtables
 * flush (each keyspace's tables, together) and compact, a keyspace is dropped and made again and
 * the store is reopened: after the crash every batch is in every keyspace it wrote or in none, the
 * batches present are a prefix of those written, and every synced one is there. A failure names
 * the seed; rerun with {@code -Dbloomstore.seed=N}.
 */
class KeyspaceCrashTest {
    private static final Path DIR = Path.of("/crash/keyspaces");
    private static final String[] NAMES = {"default", "x", "y", "z"};

    @Test
    void batchesAcrossKeyspacesAreAllOrNothingAfterACrash() throws Exception {
        for (int round = 0; round < 20; round++) {
            long seed = Long.getLong("bloomstore.seed", System.nanoTime());
            try {
                run(seed);
            } catch (Throwable t) {
                throw new AssertionError("keyspace crash round failed with seed " + seed + "; replay with "
                        + "-Dbloomstore.seed=" + seed, t);
            }
        }
    }

    private static void run(long seed) throws Exception {
        Random rnd = new Random(seed);
        StoreOptions options = StoreOptions.builder().memtableBytes(4 * 1024).l0Triggers(2, 3, 4)
                .baseLevelBytes(16 * 1024).targetFileBytes(4 * 1024).blockSize(256)
                .keyspaceOptions("x", io.bloomstore.core.KeyspaceOptions.builder()
                        .mergeOperator(io.bloomstore.core.MergeOperators.int64Add()).build()).build();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), seed);
        Store store = Store.open(fs, DIR, options);
        // A keyspace made and dropped first: its number is never used again, and its WAL records stay unread.
        store.put(store.keyspace("gone"), b("k"), b("v"));
        store.dropKeyspace("gone");
        Keyspace[] ks = new Keyspace[NAMES.length];
        for (int i = 0; i < NAMES.length; i++) {
            ks[i] = store.keyspace(NAMES[i]);
        }
        int batches = 50 + rnd.nextInt(300);
        int lastSynced = -1;
        for (int i = 0; i < batches; i++) {
            WriteBatch batch = new WriteBatch();
            for (Keyspace k : ks) {
                batch.put(k, b(String.format("m%05d", i)), b("batch " + i));
            }
            // A counter of the batches in keyspace x: counted once each, whatever was flushed when.
            batch.merge(ks[1], b("count"), io.bloomstore.core.MergeOperators.int64(1));
            // Filler so memtables switch and flush often.
            batch.put(ks[rnd.nextInt(ks.length)], b(String.format("f%05d", rnd.nextInt(1000))), new byte[64]);
            boolean sync = rnd.nextInt(8) == 0;
            store.write(batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            if (sync) {
                lastSynced = i;
            }
            if (rnd.nextInt(60) == 0) {
                store.close();
                store = Store.open(fs, DIR, options);
                for (int k = 0; k < NAMES.length; k++) {
                    ks[k] = store.keyspace(NAMES[k]);
                }
                lastSynced = i; // a clean close syncs
            }
        }
        FaultInjectionFileSystem after = fs.crashTearing();
        try {
            store.close();
        } catch (Exception expected) {
            // The crashed view refuses the close's writes.
        }
        try (Store reopened = Store.open(after, DIR, options)) {
            int present = -1;
            for (int i = 0; i < batches; i++) {
                int in = 0;
                for (String n : NAMES) {
                    if (reopened.get(reopened.keyspace(n), b(String.format("m%05d", i))) != null) {
                        in++;
                    }
                }
                if (in != 0 && in != NAMES.length) {
                    throw new AssertionError("batch " + i + " is in " + in + " of " + NAMES.length + " keyspaces");
                }
                if (in == NAMES.length) {
                    assertEquals(i - 1, present, "batch " + i + " present after a missing one");
                    present = i;
                }
            }
            assertTrue(present >= lastSynced, "synced batch " + lastSynced + " lost (last present " + present + ")");
            byte[] count = reopened.get(reopened.keyspace("x"), b("count"));
            assertEquals(present + 1, count == null ? 0 : io.bloomstore.core.MergeOperators.int64(count),
                    "the merge counter of keyspace x against the batches present");
            assertEquals(java.util.List.of("default", "x", "y", "z"), reopened.keyspaces());
            reopened.compact();
            assertTrue(present < 0 || reopened.get(reopened.keyspace("z"), b(String.format("m%05d", present))) != null,
                    "a compaction lost a batch");
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
