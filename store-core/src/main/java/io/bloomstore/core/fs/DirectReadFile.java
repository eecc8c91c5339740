package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import com.sun.nio.file.ExtendedOpenOption;

/**
 * A file read with O_DIRECT ({@link ExtendedOpenOption#DIRECT}): every read goes to the device,
 * never to or through the page cache. Direct I/O requires the buffer's address, the position and
 * the length to be multiples of the file system's block size, so each read covers the aligned
 * range around the asked one in a per-thread aligned buffer and copies the asked bytes out.
 *
 * <p>Thread safety: {@link #read} may be called from many threads at once (each has its own
 * buffer); {@link #close()} must not race with reads.
 */
final class DirectReadFile implements RandomReadFile {
    /** Initial per-thread buffer: a default block's aligned range with room to spare. */
    private static final int INITIAL_BUFFER = 32 * 1024;
    /** Larger reads use a one-off buffer, so a thread that once read a huge block keeps no huge buffer. */
    private static final int MAX_KEPT_BUFFER = 1 << 20;
    private static final ThreadLocal<ByteBuffer> BUFFER = new ThreadLocal<>();

    private final FileChannel ch;
    private final int align;

    private DirectReadFile(FileChannel ch, int align) {
        this.ch = ch;
        this.align = align;
    }

    /**
     * Opens {@code path} for direct reads.
     *
     * @throws IOException or {@link UnsupportedOperationException} when the file system refuses O_DIRECT
     */
    static DirectReadFile open(Path path) throws IOException {
        long blockSize = Files.getFileStore(path).getBlockSize();
        if (blockSize <= 0 || blockSize > 1 << 20 || Long.bitCount(blockSize) != 1) {
            throw new IOException("no usable block size for direct reads of " + path + ": " + blockSize);
        }
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
        return new DirectReadFile(ch, (int) blockSize);
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        int length = dst.remaining();
        if (length == 0) {
            return 0;
        }
        long start = position & -align;
        long end = (position + length + align - 1) & -align;
        ByteBuffer buf = buffer((int) (end - start));
        int filled = 0;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, start + filled);
            if (n <= 0) {
                break;
            }
            filled += n;
            if (n % align != 0) {
                // A direct read is short only at the end of the file.
                break;
            }
        }
        int skip = (int) (position - start);
        int available = filled - skip;
        if (available <= 0) {
            return -1;
        }
        int n = Math.min(available, length);
        dst.put(buf.limit(skip + n).position(skip));
        return n;
    }

    /** This thread's aligned buffer (or a one-off one past 1 MiB), cleared and limited to {@code length} bytes. */
    private ByteBuffer buffer(int length) {
        if (length > MAX_KEPT_BUFFER) {
            return ByteBuffer.allocateDirect(length + align).alignedSlice(align).limit(length);
        }
        ByteBuffer b = BUFFER.get();
        if (b == null || b.capacity() < length || b.alignmentOffset(0, align) != 0) {
            int capacity = Math.min(MAX_KEPT_BUFFER, Math.max(length, b == null ? INITIAL_BUFFER : 2 * b.capacity()));
            b = ByteBuffer.allocateDirect(capacity + align).alignedSlice(align);
            BUFFER.set(b);
        }
        return b.clear().limit(length);
    }

    @Override
    public long size() throws IOException {
        return ch.size();
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
