package io.bloomstore.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A file being written sequentially. {@link #sync()} makes everything written so far
 * durable; data written but not synced may be lost in a crash (and is, on the
 * fault-injecting file system).
 *
 * <p>Thread safety: not thread-safe; one writer at a time.
 */
public interface WritableFile extends Closeable {

    void write(ByteBuffer data) throws IOException;

    default void write(byte[] data, int offset, int length) throws IOException {
        write(ByteBuffer.wrap(data, offset, length));
    }

    /** Bytes written so far. */
    long position();

    /** Forces written bytes to the storage device. */
    void sync() throws IOException;
}
