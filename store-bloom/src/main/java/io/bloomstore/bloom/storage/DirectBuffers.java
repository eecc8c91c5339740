package io.bloomstore.bloom.storage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Direct (off-heap) byte buffers released at once instead of when the garbage collector finds
 * them: for memory whose owner knows when it is done with it, such as a table's index. Releasing
 * goes through {@code sun.misc.Unsafe.invokeCleaner}, as {@link JdkMemory} does for filters; on a
 * JDK without it the buffer is left to the collector.
 *
 * <p>Thread safety: stateless; a buffer must not be used once released (its owner drops every
 * reference first).
 */
public final class DirectBuffers {
    private DirectBuffers() {
    }

    /** A zeroed little-endian direct buffer of {@code bytes} bytes. */
    public static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Frees a direct buffer's memory now. */
    public static void release(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer");
        }
        JdkMemory.release(new ByteBuffer[] {buffer});
    }
}
