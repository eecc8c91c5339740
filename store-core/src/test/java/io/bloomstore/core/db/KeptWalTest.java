package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writable open keeps a few small WAL segments as they are (their writes become the live
 * memtable) instead of writing them to a level-0 table: a series of one-shot writes writes no table
 * until {@link StoreOpener#MAX_KEPT_WAL_SEGMENTS} segments await replay, then one. A segment with a
 * torn final record is never kept (a later segment after it would read as lost writes), and
 * nothing is lost either way, also when the process ends without closing the store.
 * Deterministic keys.
 */
class KeptWalTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().autoCompaction(false).build();

    @TempDir
    Path dir;

    @Test
    void oneShotWritesKeepTheirSegmentsUntilTheCapThenFlushOnce() throws IOException {
        int opens = StoreOpener.MAX_KEPT_WAL_SEGMENTS;
        for (int i = 0; i < opens; i++) {
            try (Store store = Store.open(dir, OPTIONS)) {
                store.put(key(i), value(i));
            }
            assertEquals(0, count(".sst"), "open " + i + " wrote no table");
            assertEquals(i + 1, count(".log"), "open " + i + " kept the segments it replayed");
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertEquals(1, count(".sst"), "at the cap the replayed writes became one level-0 table");
            assertEquals(1, count(".log"), "and their segments were deleted: only the new one is left");
            for (int i = 0; i < opens; i++) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
        }
    }

    @Test
    void writesAfterAKeepingOpenSurviveAnUncleanEnd() throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            store.put(key(0), value(0));
        }
        Store store = Store.open(dir, OPTIONS);
        store.put(key(1), value(1));
        store.delete(key(0));
        // No close: the process ends here. A read-only open replays both segments.
        try (Store reader = reopenReadOnlyBeside(store)) {
            assertNull(reader.get(key(0)));
            assertArrayEquals(value(1), reader.get(key(1)));
        } finally {
            store.close();
        }
    }

    @Test
    void aSegmentWithATornTailIsFlushedNotKept() throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            store.put(key(0), value(0));
            store.put(key(1), new byte[5000]);
        }
        Path wal = files(".log").get(0);
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.setLength(f.length() - 100);
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertEquals(1, count(".sst"), "the torn segment's complete writes went to a table");
            assertEquals(List.of(), files(".log").stream().filter(wal::equals).toList(), "and it was deleted");
            store.put(key(2), value(2));
        }
        try (Store store = Store.open(dir, OPTIONS)) {
            assertArrayEquals(value(0), store.get(key(0)));
            assertNull(store.get(key(1)), "the torn write was never acknowledged as synced");
            assertArrayEquals(value(2), store.get(key(2)));
        }
    }

    /** The store as another process would find it now: copied, then opened read-only. */
    private Store reopenReadOnlyBeside(Store unclosed) throws IOException {
        Path copy = dir.resolveSibling(dir.getFileName() + "-copy");
        Files.createDirectories(copy);
        for (Path p : files("")) {
            Files.copy(p, copy.resolve(p.getFileName()));
        }
        Files.deleteIfExists(copy.resolve("LOCK"));
        return Store.openReadOnly(copy, OPTIONS);
    }

    private List<Path> files(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    private long count(String suffix) throws IOException {
        return files(suffix).size();
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
