package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a checkpoint or backup copies stay on disk while it runs, whatever flushes and
 * compactions do meanwhile, and go once it is done.
 */
class LiveFilesPinTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void flushesAndCompactionsLeaveCapturedFilesUntilReleased() throws IOException {
        try (Store store = Store.open(dir, StoreOptions.builder().memtableBytes(32 << 10).build())) {
            DbImpl db = (DbImpl) store;
            for (int i = 0; i < 3000; i++) {
                store.put(key(i), new byte[40]);
            }
            store.flush();
            store.put(key(0), new byte[1]);
            LiveFiles live = db.liveFiles();
            assertTrue(live.files().stream().anyMatch(f -> f.kind() == LiveFiles.Kind.TABLE));
            assertTrue(live.files().stream().anyMatch(f -> f.kind() == LiveFiles.Kind.WAL));
            // Every captured table is replaced by the compaction, every captured WAL segment
            // made obsolete by the flush.
            for (int i = 0; i < 3000; i++) {
                store.put(key(i), new byte[41]);
            }
            store.compact();
            store.awaitCompactions();
            for (LiveFiles.LiveFile f : live.files()) {
                assertTrue(Files.exists(f.source()), f + " was deleted while captured");
                assertTrue(Files.size(f.source()) >= f.length(), f + " shrank");
            }
            live.close();
            store.put(key(1), new byte[1]);
            store.flush();
            store.awaitCompactions();
            for (LiveFiles.LiveFile f : live.files()) {
                assertFalse(Files.exists(f.source()), f + " outlived its capture");
            }
            assertEquals(41, store.get(key(2)).length);
        }
    }
}
