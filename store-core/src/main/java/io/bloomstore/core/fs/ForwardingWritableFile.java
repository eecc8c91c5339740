package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A file being written that passes every call to another, its {@link #base()}: the place to start
 * a wrapper that changes a few calls (skips or journals syncs, injects faults). The array form of
 * {@link #write(byte[], int, int)} is not forwarded: it stays the interface's, which calls
 * {@link #write(ByteBuffer)}, so a subclass that overrides that one sees every write.
 *
 * <p>Thread safety: as the base file; not thread-safe unless a subclass says otherwise.
 */
public abstract class ForwardingWritableFile implements WritableFile {
    private final WritableFile base;

    /** Wraps {@code base}, to which every call not overridden goes. */
    protected ForwardingWritableFile(WritableFile base) {
        this.base = Objects.requireNonNull(base, "base");
    }

    /** The wrapped file. */
    protected final WritableFile base() {
        return base;
    }

    @Override
    public void write(ByteBuffer data) throws IOException {
        base.write(data);
    }

    @Override
    public long position() {
        return base.position();
    }

    @Override
    public void sync() throws IOException {
        base.sync();
    }

    @Override
    public void close() throws IOException {
        base.close();
    }
}
