package io.bloomstore.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.bloomstore.core.fs.ForwardingWritableFile;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The log writer's buffering changes calls, not bytes: records appended as a group and flushed
 * once give the same file as one {@link LogWriter#addRecord} each, also for records larger than
 * the buffer's 1 MiB cap and records that cross blocks; a group below the cap costs one write
 * call; and everything reads back. Randomised; the seed is printed.
 */
class LogWriterBufferTest {
    private static final long SEED = Long.getLong("wal.seed", System.nanoTime());

    @Test
    void groupedAppendsWriteTheSameBytesAsOneRecordPerCall() throws IOException {
        System.out.println("LogWriterBufferTest seed " + SEED);
        Random rnd = new Random(SEED);
        List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int size = i % 100 == 7 ? 1_500_000 + rnd.nextInt(1 << 20) : rnd.nextInt(i % 3 == 0 ? 40_000 : 1_100);
            byte[] r = new byte[size];
            rnd.nextBytes(r);
            records.add(r);
        }
        MemoryFileSystem fs = new MemoryFileSystem();
        fs.createDirectories(Path.of("/w"));
        Path single = Path.of("/w/000001.log");
        try (LogWriter w = new LogWriter(fs.create(single), LogFormat.WAL_MAGIC)) {
            for (byte[] r : records) {
                w.addRecord(r);
            }
        }
        Path grouped = Path.of("/w/000002.log");
        try (LogWriter w = new LogWriter(fs.create(grouped), LogFormat.WAL_MAGIC)) {
            for (int i = 0; i < records.size(); ) {
                int groupEnd = Math.min(records.size(), i + 1 + rnd.nextInt(8));
                for (; i < groupEnd; i++) {
                    w.append(records.get(i), 0, records.get(i).length);
                }
                w.flush();
            }
            w.sync();
        }
        assertArrayEquals(fs.contents(single), fs.contents(grouped), "seed " + SEED);
        try (RandomReadFile f = fs.openRead(grouped)) {
            LogReader reader = new LogReader(f, grouped, LogFormat.WAL_MAGIC);
            for (byte[] expected : records) {
                assertArrayEquals(expected, reader.next(), "seed " + SEED);
            }
            assertNull(reader.next());
        }
    }

    @Test
    void aGroupIsOneWriteCall() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        fs.createDirectories(Path.of("/w"));
        WritableFile file = fs.create(Path.of("/w/000001.log"));
        int[] calls = {0};
        WritableFile counting = new ForwardingWritableFile(file) {
            @Override
            public void write(ByteBuffer data) throws IOException {
                calls[0]++;
                super.write(data);
            }
        };
        try (LogWriter w = new LogWriter(counting, LogFormat.WAL_MAGIC)) {
            calls[0] = 0;
            for (int i = 0; i < 100; i++) {
                w.append(new byte[1024], 0, 1024);
            }
            assertEquals(0, calls[0], "append only buffers");
            w.flush();
            assertEquals(1, calls[0], "one write call for a group of 100 KiB");
            assertEquals(w.size(), file.position());
        }
    }
}
