package io.bloomstore.core.wal;

import io.bloomstore.core.fs.WritableFile;
import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Appends records to a log file (WAL segment or MANIFEST), splitting each record into fragments
 * so that no fragment crosses a 32 KiB block boundary. The first record of every file is a header
 * naming the file kind (magic) and format version. Format: {@code docs/format/wal.md}.
 *
 * <p>Records are framed into a heap array: {@link #append} only buffers, {@link #flush()} hands
 * everything buffered to the file with one {@link WritableFile#write(byte[], int, int)} call (so a
 * group commit of several batches costs one call). The array and plain stores, rather than a
 * direct {@code ByteBuffer}, keep the write path short for the JIT: a direct buffer's
 * {@code putInt}/{@code put} and a channel's write inline several kilobytes of JDK bytecode into
 * every compile of the put path, which a fresh JVM's one C2 thread spent seconds on. A record
 * larger than the buffer's cap is written in several calls; that changes nothing on disk.
 * {@link #addRecord} is append and flush.
 *
 * <p>Thread safety: not thread-safe; the store serialises writers (group commit) before calling it.
 * The one exception is {@link #syncWritten()}, which a background writeback may call meanwhile.
 */
public final class LogWriter implements Closeable {
    /**
     * The buffer's first size; it doubles as groups need (up to {@link #MAX_BUFFER}). Small, since
     * every open store holds one for its WAL segment and most of a many-store process's segments
     * are idle: 64 KiB each was 32 MiB of heap for 500 stores.
     */
    private static final int INITIAL_BUFFER = 4 * 1024;
    /** Past this the buffer is written out instead of grown (a large batch, not a large group). */
    private static final int MAX_BUFFER = 1 << 20;

    private final WritableFile file;
    private final CRC32C crc = new CRC32C();
    private int blockOffset;
    /** Framed bytes not yet handed to the file: {@code buffer[0, buffered)}. */
    private byte[] buffer = new byte[INITIAL_BUFFER];
    private int buffered;
    /** {@link #size()} right after the header record: no record written since. */
    private final long headerSize;

    /** Starts a new, empty log file of the given kind by writing its header record. */
    public LogWriter(WritableFile file, long magic) throws IOException {
        if (file.position() != 0) {
            throw new IllegalArgumentException("log files are written from the start");
        }
        this.file = file;
        byte[] h = new byte[12];
        LogFormat.putFixed64(h, 0, magic);
        LogFormat.putFixed32(h, 8, LogFormat.FORMAT_VERSION);
        addRecord(h, 0, h.length);
        headerSize = size();
    }

    /** Whether no record but the header has been written or buffered. */
    public boolean holdsNoRecords() {
        return size() == headerSize;
    }

    public void addRecord(byte[] record) throws IOException {
        addRecord(record, 0, record.length);
    }

    /** Appends one record and writes it to the file; it is durable only after {@link #sync()}. */
    public void addRecord(byte[] record, int offset, int length) throws IOException {
        append(record, offset, length);
        flush();
    }

    /**
     * Frames one record into the buffer (the bytes are copied, the caller may reuse its array);
     * it reaches the file at the next {@link #flush()} (or earlier, when the buffer is full).
     */
    public void append(byte[] record, int offset, int length) throws IOException {
        int left = length;
        boolean begin = true;
        do {
            int leftover = LogFormat.BLOCK_SIZE - blockOffset;
            if (leftover < LogFormat.HEADER_SIZE) {
                // Too little room for a header: pad the block's tail with zeroes.
                if (leftover > 0) {
                    reserve(leftover);
                    Arrays.fill(buffer, buffered, buffered + leftover, (byte) 0);
                    buffered += leftover;
                }
                blockOffset = 0;
            }
            int avail = LogFormat.BLOCK_SIZE - blockOffset - LogFormat.HEADER_SIZE;
            int fragment = Math.min(left, avail);
            boolean end = fragment == left;
            int type = begin && end ? LogFormat.FULL
                    : begin ? LogFormat.FIRST
                    : end ? LogFormat.LAST
                    : LogFormat.MIDDLE;
            emit(type, record, offset, fragment);
            offset += fragment;
            left -= fragment;
            begin = false;
        } while (left > 0);
    }

    /**
     * Writes what is buffered once it is at least {@code bytes} ({@link #flush()} when 0): the
     * store's {@code walBufferBytes}, which lets small writes share one call.
     */
    public void flushIfAtLeast(int bytes) throws IOException {
        if (buffered >= bytes) {
            flush();
        }
    }

    /** Writes every buffered byte to the file with one call. */
    public void flush() throws IOException {
        int n = buffered;
        if (n > 0) {
            buffered = 0;
            file.write(buffer, 0, n);
        }
    }

    private void emit(int type, byte[] data, int offset, int length) throws IOException {
        reserve(LogFormat.HEADER_SIZE + length);
        CRC32C c = crc;
        c.reset();
        c.update(type);
        c.update(data, offset, length);
        byte[] b = buffer;
        int at = buffered;
        LogFormat.putFixed32(b, at, LogFormat.mask((int) c.getValue()));
        b[at + 4] = (byte) length;
        b[at + 5] = (byte) (length >>> 8);
        b[at + 6] = (byte) type;
        System.arraycopy(data, offset, b, at + LogFormat.HEADER_SIZE, length);
        buffered = at + LogFormat.HEADER_SIZE + length;
        blockOffset += LogFormat.HEADER_SIZE + length;
    }

    /** Makes room for {@code n} ≤ one block's bytes: grows the buffer up to its cap, else writes it out. */
    private void reserve(int n) throws IOException {
        if (buffer.length - buffered >= n) {
            return;
        }
        if (buffer.length < MAX_BUFFER) {
            buffer = Arrays.copyOf(buffer, Math.min(MAX_BUFFER, Math.max(buffer.length * 2, buffered + n)));
        }
        if (buffer.length - buffered < n) {
            flush();
        }
    }

    /**
     * Syncs the bytes already handed to the file, leaving the buffer alone: unlike every other
     * method this one may run on another thread while the writer appends and flushes (the file
     * system's sync runs alongside its writes).
     */
    public void syncWritten() throws IOException {
        file.sync();
    }

    /** Writes what is buffered, then forces the file to the device. */
    public void sync() throws IOException {
        flush();
        file.sync();
    }

    /** Bytes written to the file or buffered so far. */
    public long size() {
        return file.position() + buffered;
    }

    /** Closes the file; bytes still buffered (never flushed) are not written. */
    @Override
    public void close() throws IOException {
        file.close();
    }
}
