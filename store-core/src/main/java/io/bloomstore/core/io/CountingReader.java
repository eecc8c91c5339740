package io.bloomstore.core.io;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.stats.StoreCounters;

/**
 * The one layer every data-block read passes through: each {@link #readDataBlock} is one
 * positional read of the file and counts one {@code dataBlockReads} and its bytes in
 * {@code bytesRead} — the "disk accesses" the filters exist to save. Reads of a table's footer,
 * index and properties at open (and of whole files by verification) use {@link #readUncounted}.
 *
 * <p>A read that runs past the end of the file is a truncated file: a {@link CorruptionException}
 * naming the file and offset.
 *
 * <p>Thread safety: reads may run concurrently (as {@link RandomReadFile#read}); {@link #close()}
 * must not race with them.
 */
public final class CountingReader implements Closeable {
    private final RandomReadFile file;
    private final Path name;
    private final StoreCounters counters;

    /**
     * @param file     the open file; closed by {@link #close()}
     * @param name     the file's path, for error messages
     * @param counters where reads are counted
     */
    public CountingReader(RandomReadFile file, Path name, StoreCounters counters) {
        this.file = file;
        this.name = name;
        this.counters = counters;
    }

    /**
     * Reads a data block at {@code offset} into {@code dst}, filling it from its position to its
     * limit, and counts the read. Readers pass a reused direct buffer, so the file system can
     * read straight into it without a temporary copy.
     */
    public void readDataBlock(long offset, ByteBuffer dst) throws IOException {
        int length = dst.remaining();
        readFully(offset, dst, length);
        counters.dataBlockReads().increment();
        counters.bytesRead().add(length);
    }

    /**
     * Reads a data block for background work (compaction) into {@code dst}, from its position to
     * its limit, without counting it as a lookup's data-block read.
     */
    public void readBackgroundBlock(long offset, ByteBuffer dst) throws IOException {
        readFully(offset, dst, dst.remaining());
    }

    /** Reads {@code length} bytes at {@code offset} without counting a data-block read. */
    public byte[] readUncounted(long offset, int length) throws IOException {
        byte[] b = new byte[length];
        readFully(offset, ByteBuffer.wrap(b), length);
        return b;
    }

    private void readFully(long offset, ByteBuffer dst, int length) throws IOException {
        try {
            file.readFully(offset, dst);
        } catch (EOFException e) {
            throw new CorruptionException(name, offset, "file ends inside a read of " + length + " bytes", e);
        }
    }

    public long size() throws IOException {
        return file.size();
    }

    public Path name() {
        return name;
    }

    public RandomReadFile file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
