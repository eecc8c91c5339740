package io.bloomstore.core.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.stats.StoreCounters;

class CountingReaderTest {
    @Test
    void onlyDataBlockReadsAreCountedAndShortFilesAreCorrupt() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/store");
        fs.createDirectories(dir);
        Path p = dir.resolve("f");
        try (WritableFile out = fs.create(p)) {
            new WritableFileChannel(out).write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}));
        }
        StoreCounters c = new StoreCounters();
        try (CountingReader r = new CountingReader(fs.openRead(p), p, c)) {
            ByteBuffer block = ByteBuffer.allocateDirect(2);
            r.readDataBlock(1, block);
            assertEquals(ByteBuffer.wrap(new byte[] {2, 3}), block.flip());
            assertArrayEquals(new byte[] {4, 5}, r.readUncounted(3, 2));
            assertEquals(1, c.dataBlockReads().sum());
            assertEquals(2, c.bytesRead().sum());
            CorruptionException e = assertThrows(CorruptionException.class, () -> r.readDataBlock(4, ByteBuffer.allocate(3)));
            assertEquals(p, e.file());
            assertEquals(1, c.dataBlockReads().sum());
        }
    }

    @Test
    void readFileChannelReadsFromItsPosition() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/store");
        fs.createDirectories(dir);
        Path p = dir.resolve("f");
        try (WritableFile out = fs.create(p)) {
            out.write(new byte[] {9, 8, 7}, 0, 3);
        }
        try (ReadFileChannel ch = new ReadFileChannel(fs.openRead(p))) {
            ByteBuffer b = ByteBuffer.allocate(2);
            ch.position(1);
            assertEquals(2, ch.read(b));
            assertArrayEquals(new byte[] {8, 7}, b.array());
            assertEquals(3, ch.position());
            assertEquals(-1, ch.read(ByteBuffer.allocate(1)));
        }
    }
}
