package io.bloomstore.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the WAL encoding of a range deletion (operation type 3, key = from, value = to, one sequence
 * number): {@code testdata/golden/wal/range-deletion.log} was written by {@link #write} and must
 * read back to the same operations and be byte-identical to what this build writes. Regenerate with
 * {@code -Dbloomstore.regenerateGolden=true} after a deliberate format change (documented in
 * docs/format/wal.md).
 */
class RangeDeletionWalGoldenTest {
    static final Path GOLDEN = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden/wal/range-deletion.log");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Two batches: a put, a range deletion and a delete; then a range deletion alone. */
    static byte[] write() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path path = Path.of("/g/000001.log");
        fs.createDirectories(path.getParent());
        try (LogWriter w = new LogWriter(fs.create(path), LogFormat.WAL_MAGIC)) {
            w.addRecord(BatchCodec.encode(new WriteBatch().put(b("apple"), b("red")).deleteRange(b("b"), b("d"))
                    .delete(b("cherry")), 1));
            w.addRecord(BatchCodec.encode(new WriteBatch().deleteRange(b("a"), b("z")), 4));
            w.sync();
        }
        return fs.contents(path);
    }

    @Test
    void rangeDeletionRecordIsPinned() {
        byte[] record = BatchCodec.encode(new WriteBatch().deleteRange(b("a"), b("z")), 4);
        // sequence 4 (fixed64 LE), count 1 (fixed32 LE), type 3, from "a" (varint length + bytes), to "z".
        assertEquals("0400000000000000" + "01000000" + "03" + "0161" + "017a", HexFormat.of().formatHex(record));
    }

    @Test
    void goldenWalReadsBackAndIsByteIdentical() throws IOException {
        byte[] expected = write();
        if (Boolean.getBoolean("bloomstore.regenerateGolden")) {
            Files.createDirectories(GOLDEN.getParent());
            Files.write(GOLDEN, expected);
        }
        assertTrue(Files.exists(GOLDEN), GOLDEN + " missing; run with -Dbloomstore.regenerateGolden=true");
        byte[] golden = Files.readAllBytes(GOLDEN);
        MemoryFileSystem fs = new MemoryFileSystem();
        Path copy = Path.of("/r/000001.log");
        fs.setContents(copy, golden);
        List<String> entries = new ArrayList<>();
        try (RandomReadFile f = fs.openRead(copy)) {
            LogReader reader = new LogReader(f, copy, LogFormat.WAL_MAGIC);
            for (byte[] rec = reader.next(); rec != null; rec = reader.next()) {
                BatchCodec.decode(rec, copy, reader.lastRecordOffset(), (k, seq, type, v) -> entries.add(seq + " " + type
                        + " " + new String(k, StandardCharsets.UTF_8) + "=" + new String(v, StandardCharsets.UTF_8)));
            }
        }
        assertEquals(List.of("1 VALUE apple=red", "2 RANGE_DELETION b=d", "3 DELETION cherry=", "4 RANGE_DELETION a=z"),
                entries);
        assertArrayEquals(expected, golden, "this build writes range deletions differently from the golden file");
    }

    @Test
    void rangeDeletionWithStartNotBelowEndIsCorruption() {
        byte[] record = HexFormat.of().parseHex("0400000000000000" + "01000000" + "03" + "017a" + "0161");
        assertThrows(CorruptionException.class, () -> BatchCodec.decode(record, Path.of("/x.log"), 0,
                (k, seq, type, v) -> { }));
    }
}
