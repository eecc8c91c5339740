package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.memtable.MemTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A flushed memtable's arenas are dropped once no reader can reach it: at once when none holds its
 * view, only when the last one lets go otherwise, and never under a reader still using it.
 */
class MemtableReleaseTest {
    private static final Path DIR = Path.of("/memtable-release/store");
    private static final int KEYS = 2_000;

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("v" + i + "-".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
    }

    private static void fill(Store store) throws Exception {
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i));
        }
    }

    @Test
    void aFlushedMemtableNoReaderHoldsIsDroppedAtOnce() throws Exception {
        try (Store store = Store.open(new MemoryFileSystem(), DIR, StoreOptions.builder().autoCompaction(false).build())) {
            fill(store);
            DbState db = ((DbImpl) store).state();
            MemTable flushed = db.view.mem();
            assertFalse(flushed.discarded());
            store.flush();
            assertTrue(flushed.discarded(), "the flushed memtable kept its arenas");
            assertFalse(db.view.mem().discarded(), "the active memtable");
            for (int i = 0; i < KEYS; i += 97) {
                assertArrayEquals(value(i), store.get(key(i)));
            }
        }
    }

    @Test
    void anIteratorOpenBeforeTheFlushReadsTheWholeMemtableThenLetsItGo() throws Exception {
        try (Store store = Store.open(new MemoryFileSystem(), DIR, StoreOptions.builder().autoCompaction(false).build())) {
            fill(store);
            DbState db = ((DbImpl) store).state();
            MemTable flushed = db.view.mem();
            try (StoreIterator it = store.iterator(null, null)) {
                KeyValue first = it.next();
                assertArrayEquals(key(0), first.key());
                store.flush();
                assertFalse(flushed.discarded(), "dropped under an open iterator");
                int seen = 1;
                while (it.hasNext()) {
                    KeyValue kv = it.next();
                    assertArrayEquals(key(seen), kv.key());
                    assertArrayEquals(value(seen), kv.value());
                    seen++;
                }
                assertEquals(KEYS, seen);
                assertFalse(flushed.discarded());
            }
            assertTrue(flushed.discarded(), "kept after its last reader closed");
        }
    }

    @Test
    void closeDropsEveryMemtable() throws Exception {
        MemTable active;
        Store store = Store.open(new MemoryFileSystem(), DIR, StoreOptions.builder().autoCompaction(false).build());
        try {
            fill(store);
            active = ((DbImpl) store).state().view.mem();
        } finally {
            store.close();
        }
        assertTrue(active.discarded());
    }
}
