package io.bloomstore.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

import io.bloomstore.core.fs.RandomReadFile;

/**
 * A read-only {@link SeekableByteChannel} over a {@link RandomReadFile}, for code written
 * against channels (such as {@link io.bloomstore.bloom.FilterFile#load}) that must still go
 * through the engine's file system. Closing the channel does not close the file.
 *
 * <p>Thread safety: not thread-safe (it has a position).
 */
public final class ReadFileChannel implements SeekableByteChannel {
    private final RandomReadFile file;
    private long position;
    private boolean open = true;

    public ReadFileChannel(RandomReadFile file) {
        this.file = file;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int n = file.read(position, dst);
        if (n > 0) {
            position += n;
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public SeekableByteChannel position(long newPosition) {
        if (newPosition < 0) {
            throw new IllegalArgumentException("negative position " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new NonWritableChannelException();
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
