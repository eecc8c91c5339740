package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.stats.StoreCounters;

/**
 * Damaged table files: a flipped byte anywhere in a table (every byte of its properties and
 * footer, seeded samples of its index and data blocks) or in its filter sidecar (every header and
 * trailer byte, a sample of the payload) is reported as a {@link CorruptionException} by open or
 * by {@link TableReader#verify()}, and until then no lookup returns a wrong value; truncated,
 * extended and missing files are refused on open.
 */
class TableCorruptionTest {
    private static final FileSystem FS = LocalFileSystem.INSTANCE;
    private static final TableOptions OPTS = TableOptions.defaults().withBlockSize(512);

    @TempDir
    Path dir;
    private TableFixture fixture;
    private byte[] table;
    private byte[] filter;
    private long seed;

    @BeforeEach
    void writeTable() throws Exception {
        seed = System.nanoTime();
        System.out.println("TableCorruptionTest seed " + seed);
        fixture = TableFixture.random(new Random(seed), 300);
        fixture.write(FS, dir, 1, OPTS);
        table = Files.readAllBytes(sst());
        filter = Files.readAllBytes(sidecar());
    }

    private Path sst() {
        return dir.resolve("000001.sst");
    }

    private Path sidecar() {
        return dir.resolve("000001.filter");
    }

    @Test
    void everyFlippedTableByteIsDetectedAndNoLookupIsWrong() throws Exception {
        Random rnd = new Random(seed);
        // Without filter, so that every lookup reaches the damaged blocks (and opens are cheap).
        Files.delete(sidecar());
        fixture.write(FS, dir, 1, OPTS.withoutFilter());
        table = Files.readAllBytes(sst());
        TableProperties props;
        try (TableReader t = open(OPTS)) {
            props = t.properties();
        }
        // Every byte of the properties block and the footer; seeded samples of the index and data.
        int indexStart = (int) (props.dataSize() + props.encode().length + BlockCodec.TRAILER_BYTES);
        int footerStart = table.length - Footer.BYTES;
        TreeSet<Integer> positions = new TreeSet<>();
        for (int p = (int) props.dataSize(); p < indexStart; p++) {
            positions.add(p);
        }
        for (int p = footerStart; p < table.length; p++) {
            positions.add(p);
        }
        for (int i = 0; i < 250; i++) {
            positions.add(indexStart + rnd.nextInt(footerStart - indexStart));
            positions.add(rnd.nextInt((int) props.dataSize()));
        }
        for (int p : positions) {
            byte[] damaged = table.clone();
            damaged[p] ^= (byte) (1 + rnd.nextInt(255));
            Files.write(sst(), damaged);
            assertDetected("byte " + p, rnd);
        }
    }

    private void assertDetected(String what, Random rnd) throws IOException {
        try (TableReader t = open(OPTS)) {
            lookupsAreRightOrCorrupt(t, rnd);
            t.verify();
            fail(what + ": damage not detected (seed " + seed + ")");
        } catch (CorruptionException expected) {
            assertTrue(expected.file().getFileName().toString().startsWith("000001."), expected.toString());
        }
    }

    private void lookupsAreRightOrCorrupt(TableReader t, Random rnd) throws IOException {
        for (int i = 0; i < 20; i++) {
            byte[] key = fixture.userKeys.get(rnd.nextInt(fixture.userKeys.size()));
            try {
                TableLookup got = t.get(key, Long.MAX_VALUE);
                TableFixture.Entry want = fixture.expected(key, Long.MAX_VALUE);
                assertEquals(want.seq(), got.sequence());
                assertArrayEquals(want.value(), got.value());
            } catch (CorruptionException detected) {
                return;
            }
        }
        try (InternalIterator it = t.iterator()) {
            int i = 0;
            for (it.seekToFirst(); it.valid(); it.next()) {
                TableFixture.Entry want = fixture.entries.get(i++);
                assertArrayEquals(want.key(), it.key());
                assertEquals(want.seq(), it.sequence());
                assertArrayEquals(want.value(), it.value());
            }
            assertEquals(fixture.entries.size(), i);
        } catch (CorruptionException detected) {
            return;
        }
    }

    @Test
    void flippedSidecarBytesAreDetectedOnOpenOrByVerify() throws Exception {
        Random rnd = new Random(seed);
        TableOptions paranoid = OPTS.withVerifyFilterOnOpen(true);
        for (int p = 0; p < filter.length; p++) {
            boolean payload = p >= FilterFile.HEADER_BYTES && p < filter.length - FilterFile.TRAILER_BYTES;
            if (payload && rnd.nextInt(64) != 0) {
                continue;
            }
            byte[] damaged = filter.clone();
            damaged[p] ^= (byte) (1 + rnd.nextInt(255));
            Files.write(sidecar(), damaged);
            assertThrows(CorruptionException.class, () -> open(paranoid).close(), "sidecar byte " + p);
            // Default opens check header, length and trailer only; verify() finds the rest.
            try (TableReader t = open(OPTS)) {
                assertTrue(payload || p >= filter.length - FilterFile.TRAILER_BYTES && p < filter.length - 4,
                        "header or trailer damage at " + p + " must fail the open");
                assertThrows(CorruptionException.class, t::verify, "sidecar byte " + p);
            } catch (CorruptionException expected) {
                assertEquals(sidecar(), expected.file());
            }
        }
    }

    @Test
    void truncatedExtendedOrMissingFilesAreRefused() throws Exception {
        Random rnd = new Random(seed);
        int[] lengths = {0, 1, 47, 48, table.length - 48, table.length - 1, rnd.nextInt(table.length)};
        for (int len : lengths) {
            Files.write(sst(), Arrays.copyOf(table, len));
            assertThrows(CorruptionException.class, () -> open(OPTS).close(), "table truncated to " + len);
        }
        Files.write(sst(), Arrays.copyOf(table, table.length + 3));
        assertThrows(CorruptionException.class, () -> open(OPTS).close(), "table with trailing bytes");
        Files.write(sst(), table);

        for (int len : new int[] {0, 10, 64, filter.length - 1}) {
            Files.write(sidecar(), Arrays.copyOf(filter, len));
            CorruptionException e = assertThrows(CorruptionException.class, () -> open(OPTS).close());
            assertEquals(sidecar(), e.file());
        }
        Files.delete(sidecar());
        CorruptionException missing = assertThrows(CorruptionException.class, () -> open(OPTS).close());
        assertEquals(sidecar(), missing.file());
        assertTrue(missing.getMessage().contains("missing"), missing.getMessage());
    }

    @Test
    void unmappedSidecarsAreCheckedWholeOnOpen() throws Exception {
        MemoryFileSystem mem = TableFixture.memoryFileSystem(dir);
        fixture.write(mem, dir, 1, OPTS);
        Path name = sidecar();
        byte[] bytes = readAll(mem, name);
        bytes[FilterFile.HEADER_BYTES + 3] ^= 0x10;
        try (WritableFile out = mem.create(name)) {
            out.write(bytes, 0, bytes.length);
        }
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> TableReader.open(mem, dir, 1, OPTS, BlockCache.disabled(), new StoreCounters()).close());
        assertEquals(name, e.file());
    }

    private static byte[] readAll(FileSystem fs, Path p) throws IOException {
        try (RandomReadFile in = fs.openRead(p)) {
            ByteBuffer b = ByteBuffer.allocate((int) in.size());
            in.readFully(0, b);
            return b.array();
        }
    }

    private TableReader open(TableOptions opts) throws IOException {
        return TableReader.open(FS, dir, 1, opts, BlockCache.disabled(), new StoreCounters());
    }
}
