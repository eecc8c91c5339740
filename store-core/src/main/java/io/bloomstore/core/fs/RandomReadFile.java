package io.bloomstore.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A file read at explicit positions (SSTables, WAL and manifest during recovery).
 *
 * <p>Thread safety: {@link #read} may be called from many threads at once.
 */
public interface RandomReadFile extends Closeable {

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code position}; returns the count, which
     * is smaller only at the end of the file (-1 when position is at or past the end).
     */
    int read(long position, ByteBuffer dst) throws IOException;

    long size() throws IOException;

    /** Reads exactly {@code dst.remaining()} bytes or throws {@link java.io.EOFException}. */
    default void readFully(long position, ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            int r = read(position, dst);
            if (r < 0) {
                throw new java.io.EOFException("end of file at " + position);
            }
            position += r;
        }
    }
}
