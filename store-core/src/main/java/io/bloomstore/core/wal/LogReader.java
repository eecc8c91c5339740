package io.bloomstore.core.wal;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FormatVersionException;
import io.bloomstore.core.fs.RandomReadFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * Reads back the records of a log file written by {@link LogWriter}, checking every fragment's
 * CRC. A damaged or incomplete record at the very end of the file — what a crash in the middle of
 * a write leaves — is dropped silently (see {@link #droppedTailBytes()}); damage followed by more
 * data is a {@link CorruptionException} naming the file and offset. Format: {@code docs/format/wal.md}.
 *
 * <p>Thread safety: not thread-safe; used by one recovering thread.
 */
public final class LogReader {
    private final Path path;
    private final ByteBuffer data;
    private int pos;
    private long droppedTailBytes;
    private long lastRecordOffset;
    private int firstFragmentOffset;

    /**
     * Reads the whole file and checks its header record. An empty file, or one whose header record
     * is itself torn, is a log with no records (a crash right after the file was created).
     *
     * @throws CorruptionException when the header names another kind of file
     * @throws FormatVersionException when the file is of a format version this build cannot read
     */
    public LogReader(RandomReadFile file, Path path, long magic) throws IOException {
        this.path = path;
        long size = file.size();
        if (size > Integer.MAX_VALUE) {
            throw new CorruptionException(path, Integer.MAX_VALUE, "log file larger than 2 GiB");
        }
        byte[] bytes = new byte[(int) size];
        file.readFully(0, ByteBuffer.wrap(bytes));
        this.data = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte[] header = next();
        if (header == null) {
            return;
        }
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        if (header.length != 12 || h.getLong() != magic) {
            throw new CorruptionException(path, 0, "not a " + (magic == LogFormat.WAL_MAGIC ? "WAL segment"
                    : "MANIFEST") + " (bad magic in header record)");
        }
        int version = h.getInt();
        if (version != LogFormat.FORMAT_VERSION) {
            throw new FormatVersionException(path, magic == LogFormat.WAL_MAGIC ? "WAL" : "MANIFEST",
                    version, LogFormat.FORMAT_VERSION);
        }
    }

    /** Bytes of an incomplete or damaged final record that were dropped; 0 for a clean file. */
    public long droppedTailBytes() {
        return droppedTailBytes;
    }

    /** File offset of the first fragment of the record {@link #next()} returned last. */
    public long lastRecordOffset() {
        return lastRecordOffset;
    }

    /** The next complete record, or null at the end of the log. */
    public byte[] next() throws CorruptionException {
        ByteArrayOutputStream assembling = null;
        int limit = data.capacity();
        while (true) {
            int blockRemaining = LogFormat.BLOCK_SIZE - pos % LogFormat.BLOCK_SIZE;
            if (blockRemaining < LogFormat.HEADER_SIZE) {
                pos += blockRemaining;
                continue;
            }
            if (pos >= limit) {
                if (assembling != null) {
                    dropTail(firstFragmentOffset, limit);
                }
                return null;
            }
            int start = pos;
            if (start + LogFormat.HEADER_SIZE > limit) {
                dropTail(start);
                return null;
            }
            int crc = data.getInt(start);
            int length = Short.toUnsignedInt(data.getShort(start + 4));
            int type = data.get(start + 6) & 0xff;
            int end = start + LogFormat.HEADER_SIZE + length;
            if (end > start + blockRemaining) {
                // Fragments never cross blocks, and a torn write leaves honest lengths: damage.
                throw new CorruptionException(path, start, "fragment length " + length + " crosses a block boundary");
            }
            if (end > limit) {
                dropTail(start);
                return null;
            }
            if (type == 0 && length == 0 && crc == 0) {
                fail(start, true, "zero-filled space inside the log");
                return null;
            }
            int actual = LogFormat.checksum(type, data.array(), start + LogFormat.HEADER_SIZE, length);
            if (actual != crc) {
                failMismatch(start, end, crc, actual);
                return null;
            }
            pos = end;
            switch (type) {
                case LogFormat.FULL:
                    if (assembling != null) {
                        fail(start, isTail(end), "FULL fragment inside a FIRST..LAST record");
                        return null;
                    }
                    lastRecordOffset = start;
                    return copy(start + LogFormat.HEADER_SIZE, length);
                case LogFormat.FIRST:
                    if (assembling != null) {
                        fail(start, isTail(end), "FIRST fragment inside a FIRST..LAST record");
                        return null;
                    }
                    firstFragmentOffset = start;
                    assembling = new ByteArrayOutputStream(length * 2);
                    assembling.write(data.array(), start + LogFormat.HEADER_SIZE, length);
                    break;
                case LogFormat.MIDDLE:
                case LogFormat.LAST:
                    if (assembling == null) {
                        fail(start, isTail(end), "fragment type " + type + " without a FIRST fragment");
                        return null;
                    }
                    assembling.write(data.array(), start + LogFormat.HEADER_SIZE, length);
                    if (type == LogFormat.LAST) {
                        lastRecordOffset = firstFragmentOffset;
                        return assembling.toByteArray();
                    }
                    break;
                default:
                    fail(start, isTail(end), "unknown fragment type " + type);
                    return null;
            }
        }
    }

    private byte[] copy(int offset, int length) {
        byte[] out = new byte[length];
        System.arraycopy(data.array(), offset, out, 0, length);
        return out;
    }

    /** Whether nothing but zeroes follows {@code offset}: the damage is the log's torn tail. */
    private boolean isTail(int offset) {
        byte[] a = data.array();
        for (int i = offset; i < a.length; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private void failMismatch(int start, int end, int expected, int actual) throws CorruptionException {
        if (isTail(end)) {
            dropTail(start);
            return;
        }
        throw CorruptionException.mismatch(path, start, "record checksum", expected & 0xffffffffL,
                actual & 0xffffffffL);
    }

    private void fail(int start, boolean tail, String message) throws CorruptionException {
        if (tail) {
            dropTail(start);
            return;
        }
        throw new CorruptionException(path, start, message);
    }

    private void dropTail(int from) throws CorruptionException {
        dropTail(from, from + 1);
    }

    /**
     * Drops the log from {@code from} on as a torn tail, unless an intact fragment starts at or
     * after {@code scanFrom}: a crash tears only the last write, so damage followed by a fragment
     * whose CRC holds (a flipped length or type byte, say) is corruption, not a torn tail.
     */
    private void dropTail(int from, int scanFrom) throws CorruptionException {
        int intact = intactFragmentFrom(scanFrom);
        if (intact >= 0) {
            throw new CorruptionException(path, from, "damaged fragment followed by an intact one at offset " + intact);
        }
        droppedTailBytes = data.capacity() - from;
        pos = data.capacity();
    }

    /**
     * The offset of the first fragment at or after {@code from} whose type is valid, which fits
     * its block and the file, and whose CRC holds; -1 when there is none. Only called at the tail,
     * which lies within the last block, so the scan is short.
     */
    private int intactFragmentFrom(int from) {
        int limit = data.capacity();
        for (int o = from; o + LogFormat.HEADER_SIZE <= limit; o++) {
            int type = data.get(o + 6) & 0xff;
            if (type < LogFormat.FULL || type > LogFormat.LAST) {
                continue;
            }
            int length = Short.toUnsignedInt(data.getShort(o + 4));
            int end = o + LogFormat.HEADER_SIZE + length;
            int blockEnd = (o / LogFormat.BLOCK_SIZE + 1) * LogFormat.BLOCK_SIZE;
            if (end <= limit && end <= blockEnd
                    && LogFormat.checksum(type, data.array(), o + LogFormat.HEADER_SIZE, length) == data.getInt(o)) {
                return o;
            }
        }
        return -1;
    }
}
