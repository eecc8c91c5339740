package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drops that do not finish. A crash in the middle of one, before its MANIFEST edit: the keyspace
 * is still the store's after the reopen, and whole. The drop waits for the keyspace's compaction
 * to stop, here held inside its output's creation; meanwhile the default keyspace flushes, and
 * that flush must not retire the WAL segment holding the dropping keyspace's unflushed writes:
 * until the drop is logged, the keyspace is the store's, and so are those writes. And a drop whose
 * MANIFEST edit fails.
 */
class KeyspaceDropCrashTest {
    private static final Path DIR = Path.of("/crash/drop");
    private static final byte[] COUNT = "count".getBytes(StandardCharsets.UTF_8);

    private static byte[] key(String prefix, int i) {
        return String.format("%s%04d", prefix, i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(String prefix, int i) {
        return ("value of " + prefix + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aCrashBeforeTheDropIsLoggedLeavesTheKeyspaceWhole() throws Exception {
        StoreOptions options = StoreOptions.builder().memtableBytes(64 * 1024).l0Triggers(2, 3, 4)
                .targetFileBytes(4 * 1024).blockSize(256).mergeOperator(MergeOperators.int64Add()).build();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 1);
        AtomicBoolean hold = new AtomicBoolean(true);
        CountDownLatch compacting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fs.beforeCreate(p -> {
            if (p.toString().endsWith(".sst") && Thread.currentThread().getName().startsWith("bloomstore-compact")
                    && hold.get()) {
                compacting.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Store store = Store.open(fs, DIR, options);
        Keyspace t = store.keyspace("t");
        // Two overlapping level-0 tables: the keyspace's compaction merges them, and is held at
        // its first output.
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 100; i++) {
                store.put(t, key("a", i), value("a", i));
            }
            store.flush();
        }
        assertTrue(compacting.await(30, TimeUnit.SECONDS), "the keyspace's compaction started");
        // Unflushed writes of the keyspace, synced: in the WAL only.
        for (int i = 0; i < 100; i++) {
            store.put(t, key("c", i), value("c", i), WriteOptions.SYNC);
        }
        Thread dropper = new Thread(() -> {
            try {
                store.dropKeyspace("t");
            } catch (Throwable e) {
                // The crash below kills the store under it.
            }
        }, "dropper");
        dropper.start();
        // The drop has taken the keyspace out of the store's list and waits for its compaction.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.keyspaces().contains("t") && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(!store.keyspaces().contains("t"), "the drop is under way");
        // The default keyspace flushes meanwhile, onto a new WAL segment; its merges are counted
        // once after the reopen, not again by a replay of the segment its table holds.
        for (int i = 0; i < 100; i++) {
            store.put(key("d", i), value("d", i), WriteOptions.SYNC);
            store.merge(COUNT, MergeOperators.int64(1), WriteOptions.SYNC);
        }
        store.flush();
        FaultInjectionFileSystem after = fs.crash();
        hold.set(false);
        release.countDown();
        dropper.join(TimeUnit.SECONDS.toMillis(30));

        try (Store reopened = Store.open(after, DIR, options)) {
            assertTrue(reopened.keyspaces().contains("t"), "the drop was never logged: " + reopened.keyspaces());
            Keyspace kept = reopened.keyspace("t");
            for (String batch : new String[] {"a", "c"}) {
                for (int i = 0; i < 100; i++) {
                    assertArrayEquals(value(batch, i), reopened.get(kept, key(batch, i)), batch + i);
                }
            }
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(value("d", i), reopened.get(key("d", i)), "d" + i);
            }
            assertArrayEquals(MergeOperators.int64(100), reopened.get(COUNT), "each merge counted once");
        }
    }

    @TempDir
    Path tmp;

    /**
     * A drop whose MANIFEST edit fails (its sync, here): the drop throws, the store takes no more
     * writes, and the keyspace, back in the store's list, is released by the close like any other
     * (every filter unmapped; the close reports the failure); the reopen finds the keyspace dropped
     * (the edit reached the file) or whole.
     */
    @Test
    void aDropWhoseEditFailsLeavesTheKeyspaceToTheClose() throws Exception {
        StoreOptions options = StoreOptions.builder().memtableBytes(64 * 1024).blockSize(256).build();
        Path dir = tmp.resolve("store");
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 1);
        long mappingsBefore = MappedBitStore.openMappings();
        Store store = Store.open(fs, dir, options);
        Keyspace t = store.keyspace("t");
        for (int i = 0; i < 100; i++) {
            store.put(t, key("a", i), value("a", i));
        }
        store.flush();
        for (int i = 0; i < 100; i++) {
            store.put(t, key("c", i), value("c", i), WriteOptions.SYNC);
        }
        assertTrue(store.get(t, key("a", 0)) != null && MappedBitStore.openMappings() > mappingsBefore,
                "the keyspace's table is open, its filter mapped");
        fs.onlyFiles(p -> p.getFileName().toString().startsWith("MANIFEST")).failSyncsAfter(0);
        assertThrows(IOException.class, () -> store.dropKeyspace("t"));
        assertTrue(store.keyspaces().contains("t"), "not dropped: " + store.keyspaces());
        assertThrows(IOException.class, () -> store.put(key("d", 0), value("d", 0)),
                "a store whose MANIFEST edit failed takes no more writes");
        // The close says the store failed, and still lets go of everything.
        IOException closing = assertThrows(IOException.class, store::close);
        assertTrue(closing.getMessage().contains("failed before close"), closing.getMessage());
        assertEquals(mappingsBefore, MappedBitStore.openMappings(), "every filter unmapped once the store is closed: "
                + MappedBitStore.openMappingPaths());

        try (Store reopened = Store.open(dir, options)) {
            if (reopened.keyspaces().contains("t")) {
                Keyspace kept = reopened.keyspace("t");
                for (String batch : new String[] {"a", "c"}) {
                    for (int i = 0; i < 100; i++) {
                        assertArrayEquals(value(batch, i), reopened.get(kept, key(batch, i)), batch + i);
                    }
                }
            } else {
                assertEquals(List.of("default"), reopened.keyspaces());
            }
        }
    }
}
