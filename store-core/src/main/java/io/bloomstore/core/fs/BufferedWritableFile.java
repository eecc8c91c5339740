package io.bloomstore.core.fs;

import io.bloomstore.bloom.storage.DirectBuffers;
import io.bloomstore.core.internal.Futures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

/**
 * A {@link WritableFile} that gathers small writes in one direct buffer and hands the file a
 * whole buffer at a time, as RocksDB's {@code WritableFileWriter} does: a table is written as
 * one 4 KiB block after another, and a write call per block cost a compaction more time than
 * compressing the block (profile of a 1 KiB-value fillrandom: the compaction thread's
 * {@code write} calls 2.5 s, LZ4 1.6 s). Writes at least a buffer long go straight through.
 *
 * <p>The buffer starts at {@value #FIRST_BUFFER_BYTES} bytes (or the size asked for, when smaller)
 * and doubles each time it fills, up to the size asked for: a small store's flush writes a table
 * of a few hundred kilobytes, and a 1 MiB direct buffer for it (an mmap, its zeroing and page
 * faults, an munmap) was a tenth of the flush's time with a thousand stores flushed in turn.
 *
 * <p>Bytes still in the buffer have not reached the operating system: {@link #sync()} writes
 * them out first, and {@link #close()} writes them before closing the file. The buffer is freed
 * at close.
 *
 * <p>With a writeback executor, every {@code bytesPerSync} bytes handed to the file also start a
 * sync of the file on that executor (unless the previous one is still running), as RocksDB's bytes_per_sync
 * starts writeback: the device writes the table while the writer builds the rest, and the final
 * {@link #sync()} waits for only the last stretch (an 8 MiB compaction output's fsync was a sixth of
 * the compaction thread's time). A failed writeback fails every later {@link #sync()}.
 *
 * <p>Thread safety: not thread-safe; one writer, as {@link WritableFile}.
 */
public final class BufferedWritableFile implements WritableFile {
    /** RocksDB's writable_file_max_buffer_size. */
    public static final int DEFAULT_BUFFER_BYTES = 1 << 20;
    /** The buffer's first size, below the C allocator's mmap threshold (128 KiB). */
    static final int FIRST_BUFFER_BYTES = 64 << 10;

    private final WritableFile file;
    /** Where writebacks run, or null for none. */
    private final Executor writeback;
    /** A writeback starts once this many bytes have reached the file since the last one started. */
    private final long bytesPerSync;
    /** The file's size when the last writeback started. */
    private long writebackAt;
    private ByteBuffer buffer;
    /** The size the buffer grows to. */
    private final int maxBufferBytes;
    /** The first failed writeback; every later {@link #sync()} fails with it. */
    private IOException writebackFailure;
    /** The last writeback started (done when none runs). */
    private CompletableFuture<Void> running = CompletableFuture.completedFuture(null);

    public BufferedWritableFile(WritableFile file, int bufferBytes) {
        this(file, bufferBytes, null, 0);
    }

    /**
     * A writer that syncs the file in the background on {@code writeback} once {@code bytesPerSync}
     * more bytes have reached it (checked when the buffer is handed over; null or 0: never).
     */
    public BufferedWritableFile(WritableFile file, int bufferBytes, Executor writeback, long bytesPerSync) {
        if (bufferBytes <= 0) {
            throw new IllegalArgumentException("buffer size must be positive: " + bufferBytes);
        }
        this.file = file;
        this.writeback = bytesPerSync > 0 ? writeback : null;
        this.bytesPerSync = bytesPerSync;
        this.maxBufferBytes = bufferBytes;
        this.buffer = DirectBuffers.allocate(Math.min(bufferBytes, FIRST_BUFFER_BYTES));
    }

    @Override
    public void write(ByteBuffer data) throws IOException {
        checkOpen();
        if (data.remaining() >= buffer.capacity()) {
            flush();
            file.write(data);
            maybeStartWriteback();
            return;
        }
        while (data.hasRemaining()) {
            int n = Math.min(data.remaining(), buffer.remaining());
            int limit = data.limit();
            data.limit(data.position() + n);
            buffer.put(data);
            data.limit(limit);
            if (!buffer.hasRemaining()) {
                flushFull();
            }
        }
    }

    @Override
    public void write(byte[] data, int offset, int length) throws IOException {
        checkOpen();
        if (length >= buffer.capacity()) {
            flush();
            file.write(data, offset, length);
            maybeStartWriteback();
            return;
        }
        while (length > 0) {
            int n = Math.min(length, buffer.remaining());
            buffer.put(data, offset, n);
            offset += n;
            length -= n;
            if (!buffer.hasRemaining()) {
                flushFull();
            }
        }
    }

    /** The buffer is full: hands it to the file, and doubles it while it is below its size. */
    private void flushFull() throws IOException {
        flush();
        maybeStartWriteback();
        if (buffer.capacity() < maxBufferBytes) {
            ByteBuffer larger = DirectBuffers.allocate(Math.min(maxBufferBytes, 2 * buffer.capacity()));
            ByteBuffer old = buffer;
            buffer = larger;
            DirectBuffers.release(old);
        }
    }

    private void maybeStartWriteback() {
        if (writeback == null || file.position() - writebackAt < bytesPerSync || !running.isDone()) {
            return;
        }
        if (running.isCompletedExceptionally()) {
            recordFailure(awaitWriteback()); // kept for the next sync(), not replaced by the next writeback
        }
        if (writebackFailure == null) {
            writebackAt = file.position();
            running = CompletableFuture.runAsync(new Sync(), writeback);
        }
    }

    private void recordFailure(IOException failed) {
        if (failed != null && writebackFailure == null) {
            writebackFailure = failed;
        }
    }

    /** Waits for a running writeback; returns its failure, or null. */
    private IOException awaitWriteback() {
        Throwable failed = Futures.await(running);
        if (failed == null) {
            return null;
        }
        Throwable c = failed instanceof UncheckedIOException u ? u.getCause() : failed;
        return c instanceof IOException io ? io : new IOException("background sync failed: " + c, c);
    }

    /** Hands the buffered bytes to the file. */
    public void flush() throws IOException {
        checkOpen();
        if (buffer.position() > 0) {
            buffer.flip();
            try {
                file.write(buffer);
            } finally {
                buffer.clear();
            }
        }
    }

    @Override
    public long position() {
        return file.position() + (buffer == null ? 0 : buffer.position());
    }

    @Override
    public void sync() throws IOException {
        flush();
        recordFailure(awaitWriteback());
        if (writebackFailure != null) {
            // Sticky: after a failed fsync the kernel may have dropped the dirty pages, so a later
            // successful sync would not mean the bytes are on the device.
            throw new IOException("background sync of the file failed: " + writebackFailure.getMessage(),
                    writebackFailure);
        }
        file.sync();
    }

    /** Writes out what is buffered, then frees the buffer and closes the file (both also when the write fails). */
    @Override
    public void close() throws IOException {
        if (buffer == null) {
            return;
        }
        try {
            flush();
        } finally {
            discard();
        }
    }

    /** Frees the buffer and closes the file, dropping what is buffered (for a file about to be deleted). */
    public void discard() throws IOException {
        if (buffer == null) {
            return;
        }
        awaitWriteback(); // not closing the file under a running sync
        ByteBuffer b = buffer;
        buffer = null;
        try {
            file.close();
        } finally {
            DirectBuffers.release(b);
        }
    }

    /**
     * Frees the buffer, dropping what is buffered, and closes the file once a running writeback
     * is done, without waiting for it (on the writeback's thread when it is still running): for a
     * file a closing store leaves behind, which the next open deletes. A failure to close is dropped.
     */
    public void discardWithoutWaiting() {
        if (buffer == null) {
            return;
        }
        ByteBuffer b = buffer;
        buffer = null;
        DirectBuffers.release(b);
        running.whenComplete(new CloseAfter());
    }

    /*
     * The writeback's tasks are classes, not lambdas: a flush or compaction would spin them in a
     * fresh JVM's background threads (and a one-shot command's).
     */

    /** Syncs what was written so far, on the writeback executor. */
    private final class Sync implements Runnable {
        @Override
        public void run() {
            try {
                file.sync();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Closes the file once the running writeback is done; a failure to close is dropped. */
    private final class CloseAfter implements BiConsumer<Object, Throwable> {
        @Override
        public void accept(Object ignored, Throwable failure) {
            try {
                file.close();
            } catch (IOException | RuntimeException e) {
                // Left behind for the next open to delete: nothing more to do with it.
            }
        }
    }

    private void checkOpen() throws IOException {
        if (buffer == null) {
            throw new IOException("file is closed");
        }
    }
}
