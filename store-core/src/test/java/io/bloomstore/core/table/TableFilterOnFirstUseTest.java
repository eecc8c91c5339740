package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.io.TableFileCache;
import io.bloomstore.core.stats.StoreCounters;

/**
 * A table opened with {@link TableReader#openFilterOnFirstUse}: reading it through (what a
 * compaction does with its inputs) and the background check of its sidecar's checksums leave
 * the sidecar unmapped; the first lookup maps it and answers as an eagerly opened table does;
 * damage in the sidecar's header surfaces at that lookup, not at open.
 */
class TableFilterOnFirstUseTest {
    private static final FileSystem FS = LocalFileSystem.INSTANCE;
    private static final TableOptions OPTS = TableOptions.defaults().withBlockSize(512);
    private static final long SEED = 20261127L;

    @TempDir
    Path dir;
    private TableFixture fixture;
    private long sidecarBytes;

    @BeforeEach
    void writeTable() throws IOException {
        fixture = TableFixture.random(new Random(SEED), 400);
        fixture.write(FS, dir, 1, OPTS);
        sidecarBytes = Files.size(dir.resolve("000001.filter"));
    }

    private TableReader openLazily(StoreCounters counters) throws IOException {
        return TableReader.openFilterOnFirstUse(FS, dir, 1, OPTS, BlockCache.disabled(), counters,
                counters.level(0), TableFileCache.unbounded(FS));
    }

    @Test
    void readingTheTableThroughMapsNoFilter() throws IOException {
        try (TableReader t = openLazily(new StoreCounters())) {
            assertTrue(t.hasFilter());
            assertEquals(0, t.filterBytes(), "nothing mapped on open");
            int entries = 0;
            try (InternalIterator it = t.iterator(false)) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    entries++;
                }
            }
            assertEquals(fixture.entries.size(), entries);
            assertEquals(0, t.filterBytes(), "an iterator maps no filter");
            // The ahead-of-time check of the payload reads the file and maps nothing either.
            assertTrue(t.filterUnchecked());
            t.checkFilter();
            assertFalse(t.filterUnchecked());
            assertEquals(0, t.filterBytes(), "the payload check maps no filter");
        }
    }

    @Test
    void theFirstLookupMapsTheFilterAndAnswersAsAnEagerOpen() throws IOException {
        StoreCounters lazyCounters = new StoreCounters();
        StoreCounters eagerCounters = new StoreCounters();
        Random rnd = new Random(SEED + 1);
        try (TableReader lazy = openLazily(lazyCounters);
             TableReader eager = TableReader.open(FS, dir, 1, OPTS, BlockCache.disabled(), eagerCounters)) {
            assertEquals(sidecarBytes, eager.filterBytes());
            for (int i = 0; i < 300; i++) {
                byte[] key = i % 2 == 0 ? fixture.userKeys.get(rnd.nextInt(fixture.userKeys.size()))
                        : TableFixture.randomKey(rnd);
                TableLookup a = lazy.get(key, Long.MAX_VALUE);
                TableLookup b = eager.get(key, Long.MAX_VALUE);
                if (b == null) {
                    assertNull(a);
                } else {
                    assertNotNull(a);
                    assertEquals(b.type(), a.type());
                    assertEquals(b.sequence(), a.sequence());
                    assertArrayEquals(b.value(), a.value());
                }
                assertEquals(sidecarBytes, lazy.filterBytes(), "mapped by the first lookup");
            }
            assertEquals(eagerCounters.filterNegatives().sum(), lazyCounters.filterNegatives().sum());
            assertTrue(lazyCounters.filterNegatives().sum() > 0, "the filter answered absent keys");
            assertEquals(eager.filterHeader(), lazy.filterHeader());
        }
    }

    @Test
    void damageInTheSidecarHeaderSurfacesAtTheFirstLookup() throws IOException {
        Path sidecar = dir.resolve("000001.filter");
        byte[] bytes = Files.readAllBytes(sidecar);
        bytes[FilterFile.HEADER_BYTES / 2] ^= 0x04;
        Files.write(sidecar, bytes);
        assertThrows(CorruptionException.class,
                () -> TableReader.open(FS, dir, 1, OPTS, BlockCache.disabled(), new StoreCounters()).close(),
                "an eager open checks the header");
        try (TableReader t = openLazily(new StoreCounters())) {
            try (InternalIterator it = t.iterator(false)) {
                it.seekToFirst();
                assertTrue(it.valid(), "the table's own bytes are fine");
            }
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> t.get(fixture.userKeys.get(0), Long.MAX_VALUE));
            assertEquals(sidecar, e.file());
            // Reported again, never believed.
            assertThrows(CorruptionException.class, () -> t.get(fixture.userKeys.get(1), Long.MAX_VALUE));
        }
    }

    @Test
    void aClosedTableMapsNothing() throws IOException {
        TableReader t = openLazily(new StoreCounters());
        t.close();
        assertThrows(IllegalStateException.class, () -> t.get(fixture.userKeys.get(0), Long.MAX_VALUE));
        assertEquals(0, t.filterBytes());
    }
}
