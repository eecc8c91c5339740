package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A flush writes only the versions some reader may still see: the newest of each key, the ones a
 * live snapshot needs, and every tombstone. A hot key rewritten many times between flushes costs
 * level 0 one entry, as in a compaction.
 */
class FlushShadowedVersionsTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().autoCompaction(false).build();

    @Test
    void flushKeepsOnlyTheNewestVersionOfAHotKey() throws Exception {
        try (Store store = Store.open(new MemoryFileSystem(), Path.of("/hot"), OPTIONS)) {
            for (int i = 0; i < 100; i++) {
                store.put(bytes("hot"), bytes("v" + i));
            }
            store.put(bytes("cold"), bytes("c"));
            store.flush();
            assertEquals(2, store.stats().levels().get(0).entries());
            assertArrayEquals(bytes("v99"), store.get(bytes("hot")));
            assertArrayEquals(bytes("c"), store.get(bytes("cold")));
        }
    }

    @Test
    void flushKeepsWhatALiveSnapshotSeesAndEveryTombstone() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        try (Store store = Store.open(fs, Path.of("/snap"), OPTIONS)) {
            store.put(bytes("gone"), bytes("old"));
            store.flush();
            for (int i = 0; i < 10; i++) {
                store.put(bytes("hot"), bytes("v" + i));
            }
            try (Snapshot snapshot = store.snapshot()) {
                for (int i = 10; i < 20; i++) {
                    store.put(bytes("hot"), bytes("v" + i));
                }
                store.delete(bytes("gone"));
                store.flush();
                // First table: gone=old. Second: hot v19 (newest) and v9 (the snapshot's), and gone's tombstone.
                assertEquals(1 + 3, store.stats().levels().get(0).entries());
                ReadOptions atSnapshot = ReadOptions.at(snapshot);
                assertArrayEquals(bytes("v9"), store.get(bytes("hot"), atSnapshot));
                assertArrayEquals(bytes("old"), store.get(bytes("gone"), atSnapshot));
                assertArrayEquals(bytes("v19"), store.get(bytes("hot")));
                assertNull(store.get(bytes("gone")));
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
