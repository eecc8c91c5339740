package io.bloomstore.core.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The buffered table writer: same bytes as writing directly, in every write size, and what sync and discard keep. */
class BufferedWritableFileTest {
    private static final Path FILE = Path.of("/t/000001.sst");
    private static final int BUFFER = 1024;

    @Test
    void writesOfEverySizeGiveTheSameBytesAndPositions() throws IOException {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        MemoryFileSystem fs = memoryFileSystem();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (BufferedWritableFile out = new BufferedWritableFile(fs.create(FILE), BUFFER)) {
            for (int i = 0; i < 500; i++) {
                // below, at and above the buffer size, through both write methods
                int n = switch (rnd.nextInt(4)) {
                    case 0 -> rnd.nextInt(16);
                    case 1 -> rnd.nextInt(BUFFER);
                    case 2 -> BUFFER;
                    default -> BUFFER + rnd.nextInt(3 * BUFFER);
                };
                byte[] b = new byte[n + 7];
                rnd.nextBytes(b);
                if (rnd.nextBoolean()) {
                    out.write(b, 3, n);
                } else {
                    out.write(ByteBuffer.wrap(b, 3, n));
                }
                expected.write(b, 3, n);
                assertEquals(expected.size(), out.position(), "seed " + seed);
            }
        }
        assertArrayEquals(expected.toByteArray(), fs.contents(FILE), "seed " + seed);
    }

    @Test
    void theBufferGrowsFromItsFirstSizeWithoutChangingABit() throws IOException {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        MemoryFileSystem fs = memoryFileSystem();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        int max = 8 * BufferedWritableFile.FIRST_BUFFER_BYTES;
        try (BufferedWritableFile out = new BufferedWritableFile(fs.create(FILE), max)) {
            // 4 KiB blocks (a table's) past every doubling, then writes around the sizes the buffer passes through
            while (expected.size() < 3 * max) {
                int n = rnd.nextInt(8) == 0 ? rnd.nextInt(2 * BufferedWritableFile.FIRST_BUFFER_BYTES) : 4096;
                byte[] b = new byte[n];
                rnd.nextBytes(b);
                if (rnd.nextBoolean()) {
                    out.write(b, 0, n);
                } else {
                    out.write(ByteBuffer.wrap(b));
                }
                expected.write(b, 0, n);
                assertEquals(expected.size(), out.position(), "seed " + seed);
            }
        }
        assertArrayEquals(expected.toByteArray(), fs.contents(FILE), "seed " + seed);
    }

    @Test
    void syncMakesBufferedBytesDurableAndDiscardDropsTheRest() throws IOException {
        MemoryFileSystem fs = memoryFileSystem();
        BufferedWritableFile out = new BufferedWritableFile(fs.create(FILE), BUFFER);
        out.write(new byte[100], 0, 100);
        assertEquals(0, fs.contents(FILE).length, "still buffered");
        out.sync();
        out.write(new byte[50], 0, 50);
        out.discard();
        fs.dropUnsyncedData();
        assertEquals(100, fs.contents(FILE).length, "the synced bytes survive a crash");
        assertThrows(IOException.class, () -> out.write(new byte[1], 0, 1));
        out.close(); // closing a discarded file is a no-op
    }

    @Test
    void closeWritesWhatIsBuffered() throws IOException {
        MemoryFileSystem fs = memoryFileSystem();
        BufferedWritableFile out = new BufferedWritableFile(fs.create(FILE), BUFFER);
        out.write(new byte[10], 0, 10);
        out.close();
        assertEquals(10, fs.contents(FILE).length);
        out.close(); // a second close is a no-op
    }

    @Test
    void fullBuffersAreSyncedInTheBackground() throws Exception {
        MemoryFileSystem fs = memoryFileSystem();
        ExecutorService syncer = Executors.newSingleThreadExecutor();
        try {
            BufferedWritableFile out = new BufferedWritableFile(fs.create(FILE), BUFFER, syncer, BUFFER);
            for (int i = 0; i < 3; i++) {
                out.write(new byte[BUFFER], 0, BUFFER);
            }
            out.write(new byte[10], 0, 10);
            syncer.submit(() -> { }).get(); // the writebacks started so far have run
            fs.dropUnsyncedData();
            assertTrue(fs.contents(FILE).length >= BUFFER, "synced without a sync call: " + fs.contents(FILE).length);
            out.discard();
        } finally {
            syncer.shutdown();
        }
    }

    @Test
    void aFailedWritebackFailsTheNextSync() throws Exception {
        MemoryFileSystem fs = memoryFileSystem();
        AtomicInteger syncs = new AtomicInteger();
        WritableFile failing = new ForwardingWritableFile(fs.create(FILE)) {
            @Override
            public void sync() throws IOException {
                if (syncs.incrementAndGet() == 1) {
                    throw new IOException("injected writeback failure");
                }
                super.sync();
            }
        };
        ExecutorService syncer = Executors.newSingleThreadExecutor();
        try (BufferedWritableFile out = new BufferedWritableFile(failing, BUFFER, syncer, BUFFER)) {
            out.write(new byte[BUFFER], 0, BUFFER);
            syncer.submit(() -> { }).get(); // the failing writeback has run
            out.write(new byte[BUFFER], 0, BUFFER); // a full buffer again: no new writeback hides the failure
            IOException e = assertThrows(IOException.class, out::sync);
            assertEquals("injected writeback failure", e.getCause().getMessage());
            // sticky: the kernel may have dropped the pages the failed sync did not write
            assertThrows(IOException.class, out::sync);
            assertEquals(1, syncs.get(), "no sync reached the file after the failure");
        } finally {
            syncer.shutdown();
        }
    }

    private static MemoryFileSystem memoryFileSystem() {
        MemoryFileSystem fs = new MemoryFileSystem();
        fs.createDirectories(FILE.getParent());
        return fs;
    }
}
