package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;

import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.fs.UnsyncedFileSystem;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Store#stats()} keeps the lazy table open: on a store just opened, writable or read-only,
 * it opens no table (no {@code .sst} descriptor, no reader registered, no filter mapped, no sidecar
 * queued for its whole-file check), and its per-table and per-level filter figures are the ones it
 * reports once every table has been opened and its filters loaded. A damaged sidecar header is
 * reported, still without opening the table. Deterministic keys: one flush
 * per table, each of its own 4-byte prefix, so each key lies in exactly one level-0 table.
 */
class StatsOpensNoTableTest {
    private static final int TABLES = 64;
    private static final int KEYS_PER_TABLE = 50;
    private static final StoreOptions OPTIONS = StoreOptions.builder().autoCompaction(false).blockCacheBytes(0)
            .prefixExtractor(PrefixExtractor.fixed(4)).rangeFilter(RangeFilterOptions.of(12)).build();

    @TempDir
    Path dir;

    @Test
    void statsOnAWritableOpenOpensNoTable() throws IOException {
        load();
        try (Store store = Store.open(dir, OPTIONS)) {
            checkStatsOpenNothing(store);
        }
    }

    @Test
    void statsOnAReadOnlyOpenOpensNoTable() throws IOException {
        load();
        try (Store store = Store.openReadOnly(dir, OPTIONS)) {
            checkStatsOpenNothing(store);
        }
    }

    @Test
    void aDamagedSidecarHeaderIsReportedWithoutOpeningTheTable() throws IOException {
        load();
        Path sidecar;
        try (Stream<Path> files = Files.list(dir)) {
            sidecar = files.filter(p -> p.toString().endsWith(".filter")).sorted().toList().get(TABLES / 2);
        }
        // Inside the bytes the set's HeaderCRC covers (docs/format/filter.md).
        try (RandomAccessFile f = new RandomAccessFile(sidecar.toFile(), "rw")) {
            f.seek(20);
            int b = f.read();
            f.seek(20);
            f.write(b ^ 0x5A);
        }
        try (Store store = Store.openReadOnly(dir, OPTIONS)) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class, store::stats);
            assertInstanceOf(CorruptionException.class, e.getCause());
            assertTrue(e.getMessage().contains(sidecar.getFileName().toString()), e.getMessage());
            assertEquals(0, ((DbImpl) store).tables().openedTables(), "stats opened tables");
        }
    }

    private static void checkStatsOpenNothing(Store store) throws IOException {
        TableRegistry tables = ((DbImpl) store).tables();
        tables.awaitReclaimed();
        int filesBefore = tables.openFiles();
        StoreStats described = store.stats();
        StoreStats again = store.stats();
        tables.awaitReclaimed();
        assertEquals(0, tables.openedTables(), "stats opened tables");
        assertEquals(filesBefore, tables.openFiles(), "stats left table files open");
        assertEquals(0, described.filterBytes(), "stats mapped or loaded a filter");
        assertEquals(0, store.stats().filterFileReads(), "stats had sidecars read whole");
        assertEquals(TABLES, described.levels().get(0).files());
        assertEquals(TABLES, described.tables().size());
        for (StoreStats.TableFilterStats t : described.tables()) {
            assertTrue(t.keyFilterBytes() > 0 && t.prefixFilterBytes() > 0 && t.rangeFilterBytes() > 0, t.toString());
            assertEquals(PrefixExtractor.fixed(4).toString(), t.prefixExtractor());
        }
        assertEquals(described.tables(), again.tables());

        // Every table's range holds these absent keys: each lookup opens its table and loads its filters.
        for (int t = 0; t < TABLES; t++) {
            assertNull(store.get(key(t, KEYS_PER_TABLE / 2, "x")));
        }
        assertEquals(TABLES, tables.openedTables());
        StoreStats opened = store.stats();
        assertTrue(opened.filterBytes() > 0, "the lookups loaded the filters");
        assertEquals(described.tables(), opened.tables());
        assertEquals(levelFprs(described), levelFprs(opened));
        assertTrue(levelFprs(described).get(0) > 0 && levelFprs(described).get(0) < 0.05,
                levelFprs(described).toString());
    }

    private void load() throws IOException {
        try (Store store = Store.open(UnsyncedFileSystem.INSTANCE, dir, OPTIONS)) {
            for (int t = 0; t < TABLES; t++) {
                for (int i = 0; i < KEYS_PER_TABLE; i++) {
                    store.put(key(t, i, ""), ("v" + i).getBytes(StandardCharsets.US_ASCII));
                }
                store.flush();
            }
        }
    }

    private static List<Double> levelFprs(StoreStats s) {
        return s.levels().stream().map(StoreStats.LevelStats::expectedFpr).toList();
    }

    /** Table {@code t}'s keys share nothing with another table's range: its own 4-byte prefix. */
    private static byte[] key(int t, int i, String suffix) {
        return String.format("t%03d-%08d%s", t, i, suffix).getBytes(StandardCharsets.US_ASCII);
    }
}
