package io.bloomstore.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogReader} streams: it reads a log one block at a time, so records spanning many blocks
 * come back whole and a log of more than 2 GiB (stress profile) reads to its end, every record
 * intact, with memory bounded by one block plus one record; a reader resumed at a record's end
 * reads on from there and nothing before it.
 */
class LogReaderStreamingTest {
    @TempDir
    Path tmp;

    private static byte[] record(int i, int length) {
        byte[] r = new byte[length];
        Arrays.fill(r, (byte) i);
        ByteBuffer.wrap(r).putInt(i);
        return r;
    }

    @Test
    void recordsSpanningBlocksComeBackWhole() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path path = Path.of("/log/000001.log");
        fs.createDirectories(path.getParent());
        int[] lengths = {1, 100_000, 32 * 1024 - 7, 32 * 1024, 5, 250_000, 0, 70_000};
        try (LogWriter w = new LogWriter(fs.create(path), LogFormat.WAL_MAGIC)) {
            for (int i = 0; i < lengths.length; i++) {
                w.addRecord(record(i, Math.max(4, lengths[i])));
            }
        }
        try (RandomReadFile f = fs.openRead(path)) {
            LogReader r = new LogReader(f, path, LogFormat.WAL_MAGIC);
            for (int i = 0; i < lengths.length; i++) {
                assertTrue(Arrays.equals(record(i, Math.max(4, lengths[i])), r.next()), "record " + i);
            }
            assertNull(r.next());
            assertEquals(0, r.droppedTailBytes());
        }
    }

    @Test
    void resumesAtEachPositionReadingNothingBefore() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path path = Path.of("/log/000001.log");
        fs.createDirectories(path.getParent());
        int[] lengths = {10, 40_000, 32 * 1024 - 14, 4, 90_000, 7};
        try (LogWriter w = new LogWriter(fs.create(path), LogFormat.WAL_MAGIC)) {
            for (int i = 0; i < lengths.length; i++) {
                w.addRecord(record(i, lengths[i]));
            }
        }
        long[] positions = new long[lengths.length + 1];
        try (RandomReadFile f = fs.openRead(path)) {
            LogReader r = new LogReader(f, path, LogFormat.WAL_MAGIC);
            positions[0] = r.position();
            for (int i = 0; i < lengths.length; i++) {
                r.next();
                positions[i + 1] = r.position();
            }
            assertEquals(f.size(), positions[lengths.length]);
        }
        for (int from = 0; from <= lengths.length; from++) {
            long floor = positions[from];
            try (RandomReadFile base = fs.openRead(path)) {
                RandomReadFile f = new RandomReadFile() {
                    @Override
                    public int read(long position, ByteBuffer dst) throws IOException {
                        assertTrue(position >= floor, "read at " + position + ", before " + floor);
                        return base.read(position, dst);
                    }

                    @Override
                    public long size() throws IOException {
                        return base.size();
                    }

                    @Override
                    public void close() throws IOException {
                        base.close();
                    }
                };
                LogReader r = LogReader.resume(f, path, floor);
                for (int i = from; i < lengths.length; i++) {
                    assertTrue(Arrays.equals(record(i, lengths[i]), r.next()), "record " + i + " from " + from);
                    assertEquals(positions[i + 1], r.position());
                }
                assertNull(r.next());
                assertEquals(0, r.droppedTailBytes());
            }
        }
    }

    @Test
    @Tag("stress")
    void logOfMoreThanTwoGibibytesReadsToTheEnd() throws IOException {
        Path path = tmp.resolve("000001.log");
        int recordBytes = 1 << 20;
        long target = (2L << 30) + (64L << 20);
        int records = (int) (target / recordBytes) + 1;
        try (LogWriter w = new LogWriter(LocalFileSystem.INSTANCE.create(path), LogFormat.WAL_MAGIC)) {
            for (int i = 0; i < records; i++) {
                w.addRecord(record(i, recordBytes));
            }
            w.sync();
        }
        try {
            long size = Files.size(path);
            assertTrue(size > 2L << 30, size + " bytes");
            try (RandomReadFile f = LocalFileSystem.INSTANCE.openRead(path)) {
                LogReader r = new LogReader(f, path, LogFormat.WAL_MAGIC);
                int read = 0;
                for (byte[] rec = r.next(); rec != null; rec = r.next()) {
                    assertEquals(read, ByteBuffer.wrap(rec).getInt(), "record order");
                    assertEquals(recordBytes, rec.length);
                    assertEquals((byte) read, rec[recordBytes - 1]);
                    read++;
                }
                assertEquals(records, read);
                assertEquals(0, r.droppedTailBytes());
                System.out.println("LogReaderStreamingTest: read " + read + " records from a log of " + size + " bytes");
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
