package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.Store;
import io.bloomstore.core.Compression;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's filter sidecar is checked (its payload CRC, one whole-file read) on the store's
 * background thread as soon as the table opens (here every table, opened by the statistics the
 * test polls), so absent lookups after that find every filter checked and read no sidecar; a damaged sidecar fails that background check, stays unchecked,
 * and the lookups that would believe it still report it. Deterministic keys; waits poll for at
 * most 10 s.
 */
class FilterCheckAheadTest {
    private static final int KEYS = 20_000;
    private static final StoreOptions OPTIONS = StoreOptions.builder()
            .filterKind(FilterKind.RIBBON).bitsPerKey(10).memtableBytes(256 * 1024).targetFileBytes(256 * 1024)
            .compression(Compression.NONE).blockCacheBytes(0).build();

    @TempDir
    Path tmp;

    @Test
    void filtersAreCheckedBeforeTheFirstAbsentAnswer() throws Exception {
        Path dir = tmp.resolve("store");
        int tables = load(dir);
        try (Store store = Store.open(dir, OPTIONS)) {
            openEveryTable(store);
            long checked = awaitFilterReads(store, tables);
            assertEquals(tables, checked, "every table's sidecar is checked once, without a lookup");
            StoreStats before = store.stats();
            for (int i = 0; i < 2_000; i++) {
                assertNull(store.get(key(i, true)));
            }
            StoreStats after = store.stats();
            assertTrue(after.filterNegatives() - before.filterNegatives() > 1_900,
                    "the filters answered the absent lookups");
            assertEquals(0, after.filterFileReads() - before.filterFileReads(),
                    "no absent lookup read a sidecar: the background check had read them all");
        }
    }

    @Test
    void aDamagedSidecarStillFailsTheLookupsThatWouldBelieveIt() throws Exception {
        Path dir = tmp.resolve("store");
        int tables = load(dir);
        List<Path> sidecars;
        try (Stream<Path> s = Files.list(dir)) {
            sidecars = s.filter(p -> p.toString().endsWith(".filter")).sorted().toList();
        }
        assertEquals(tables, sidecars.size());
        Path damaged = sidecars.get(0);
        flipByte(damaged, Files.size(damaged) / 2);
        try (Store store = Store.open(dir, OPTIONS)) {
            // The background check of the damaged sidecar fails and is not counted as a read.
            openEveryTable(store);
            awaitFilterReads(store, tables - 1);
            int reported = 0;
            for (int i = 0; i < KEYS; i += 7) {
                try {
                    assertNull(store.get(key(i, true)), "an absent key is never found");
                } catch (CorruptionException e) {
                    assertTrue(e.getMessage().contains(damaged.getFileName().toString()), e.getMessage());
                    reported++;
                }
            }
            assertTrue(reported > 0, "absent lookups in the damaged table's range report the damage");
        }
    }

    /** Writes {@link #KEYS} keys into a compacted store and returns its table count. */
    private static int load(Path dir) throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i, false), new byte[100]);
            }
            store.flush();
            store.compact();
            int tables = store.stats().levels().stream().mapToInt(StoreStats.LevelStats::files).sum();
            assertTrue(tables >= 2, "several tables: " + tables);
            store.close();
            // Tables a compaction replaced are deleted by the next open's background thread, not at
            // close: once it is done only live ones stay.
            try (Store reopened = Store.open(dir, OPTIONS)) {
                reopened.awaitCompactions();
            }
            return tables;
        }
    }

    /**
     * Opens every table without a lookup (tables open on first use, and statistics open none): a
     * scan reads no filter, and each table it opens has its sidecar checked in the background.
     */
    private static void openEveryTable(Store store) {
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                it.next();
            }
        }
    }

    /** Polls until the store has read {@code want} sidecars (or 10 s pass); returns the count. */
    private static long awaitFilterReads(Store store, int want) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        long reads = store.stats().filterFileReads();
        while (reads < want && System.nanoTime() < deadline) {
            Thread.sleep(10);
            reads = store.stats().filterFileReads();
        }
        return reads;
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.flip();
            b.put(0, (byte) (b.get(0) ^ 0x10));
            ch.write(b, position);
        }
    }

    /** Present keys are even ordinals, absent ones odd, so every absent key lies inside some table's range. */
    private static byte[] key(int i, boolean absent) {
        return String.format("key-%09d", 2L * i + (absent ? 1 : 0)).getBytes(StandardCharsets.UTF_8);
    }
}
