package io.bloomstore.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the WAL format: {@code testdata/golden/wal/000001.log} was written by {@link #write} and
 * must still read back to the same batches and be byte-identical to what this build writes. Run
 * with {@code -Dbloomstore.regenerateGolden=true} to rewrite it after a deliberate format change
 * (and document the change in docs/format/wal.md).
 */
class WalGoldenTest {
    static final Path GOLDEN = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden/wal/000001.log");

    /** The golden WAL: three batches, the last with a value spanning two blocks (FIRST/MIDDLE/LAST fragments). */
    static byte[] write() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path path = Path.of("/g/000001.log");
        fs.createDirectories(path.getParent());
        try (LogWriter w = new LogWriter(fs.create(path), LogFormat.WAL_MAGIC)) {
            w.addRecord(BatchCodec.encode(new WriteBatch().put(b("apple"), b("red")).put(b("banana"), b("yellow")), 1));
            w.addRecord(BatchCodec.encode(new WriteBatch().delete(b("apple")), 3));
            w.addRecord(BatchCodec.encode(new WriteBatch().put(b("big"), bigValue()), 4));
            w.sync();
        }
        return fs.contents(path);
    }

    static byte[] bigValue() {
        byte[] v = new byte[70_000];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (i % 251);
        }
        return v;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
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
        byte[][] big = new byte[1][];
        try (RandomReadFile f = fs.openRead(copy)) {
            LogReader reader = new LogReader(f, copy, LogFormat.WAL_MAGIC);
            for (byte[] rec = reader.next(); rec != null; rec = reader.next()) {
                BatchCodec.decode(rec, copy, reader.lastRecordOffset(), (k, seq, type, v) -> {
                    String key = new String(k, StandardCharsets.UTF_8);
                    if (key.equals("big")) {
                        big[0] = v;
                        entries.add(seq + " " + type + " big");
                    } else {
                        entries.add(seq + " " + type + " " + key + "=" + new String(v, StandardCharsets.UTF_8));
                    }
                });
            }
            assertEquals(0, reader.droppedTailBytes());
        }
        assertEquals(List.of("1 VALUE apple=red", "2 VALUE banana=yellow", "3 DELETION apple=", "4 VALUE big"), entries);
        assertArrayEquals(bigValue(), big[0]);
        assertArrayEquals(expected, golden, "this build writes the WAL format differently from the golden file");
    }
}
