package io.bloomstore.core.wal;

import io.bloomstore.core.fs.WritableFile;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Appends records to a log file (WAL segment or MANIFEST), splitting each record into fragments
 * so that no fragment crosses a 32 KiB block boundary. The first record of every file is a header
 * naming the file kind (magic) and format version. Format: {@code docs/format/wal.md}.
 *
 * <p>Thread safety: not thread-safe; the store serialises writers (group commit) before calling it.
 */
public final class LogWriter implements Closeable {
    private static final byte[] ZEROES = new byte[LogFormat.HEADER_SIZE];

    private final WritableFile file;
    private int blockOffset;
    /** The physical bytes of the record being added, written with one call. */
    private ByteBuffer out = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);

    /** Starts a new, empty log file of the given kind by writing its header record. */
    public LogWriter(WritableFile file, long magic) throws IOException {
        if (file.position() != 0) {
            throw new IllegalArgumentException("log files are written from the start");
        }
        this.file = file;
        ByteBuffer h = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        h.putLong(magic).putInt(LogFormat.FORMAT_VERSION);
        addRecord(h.array(), 0, h.capacity());
    }

    public void addRecord(byte[] record) throws IOException {
        addRecord(record, 0, record.length);
    }

    /** Appends one record; it is durable only after {@link #sync()}. */
    public void addRecord(byte[] record, int offset, int length) throws IOException {
        int left = length;
        boolean begin = true;
        out.clear();
        do {
            int leftover = LogFormat.BLOCK_SIZE - blockOffset;
            if (leftover < LogFormat.HEADER_SIZE) {
                // Too little room for a header: pad the block's tail with zeroes.
                if (leftover > 0) {
                    reserve(leftover);
                    out.put(ZEROES, 0, leftover);
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
        out.flip();
        file.write(out);
    }

    private void emit(int type, byte[] data, int offset, int length) {
        reserve(LogFormat.HEADER_SIZE + length);
        out.putInt(LogFormat.checksum(type, data, offset, length));
        out.putShort((short) length);
        out.put((byte) type);
        out.put(data, offset, length);
        blockOffset += LogFormat.HEADER_SIZE + length;
    }

    private void reserve(int n) {
        if (out.remaining() < n) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + n))
                    .order(ByteOrder.LITTLE_ENDIAN);
            out.flip();
            bigger.put(out);
            out = bigger;
        }
    }

    public void sync() throws IOException {
        file.sync();
    }

    /** Bytes written to the file so far. */
    public long size() {
        return file.position();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
