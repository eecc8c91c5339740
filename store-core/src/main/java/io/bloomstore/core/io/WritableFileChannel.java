package io.bloomstore.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

import io.bloomstore.core.fs.WritableFile;

/**
 * A {@link WritableByteChannel} over a {@link WritableFile}, so code written against channels
 * (such as {@link io.bloomstore.bloom.FilterFile#write(io.bloomstore.bloom.MembershipFilter,
 * WritableByteChannel)}) writes through the engine's file system. Closing the channel does not
 * close or sync the file.
 *
 * <p>Thread safety: as the underlying file (one writer at a time).
 */
public final class WritableFileChannel implements WritableByteChannel {
    private final WritableFile file;
    private boolean open = true;

    public WritableFileChannel(WritableFile file) {
        this.file = file;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int n = src.remaining();
        // The file takes the whole buffer; whether it advances the caller's position is not part
        // of its contract, so hand it a duplicate and advance this one here.
        file.write(src.duplicate());
        src.position(src.limit());
        return n;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
