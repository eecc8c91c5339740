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
 * <p>Streams the file one 32 KiB block at a time: memory is bounded by one block plus the record
 * being assembled, whatever the file's size (no 2 GiB limit). Only when damage is found does it
 * read on to the end of the file, to tell a torn tail from damage followed by more data.
 *
 * <p>Thread safety: not thread-safe; used by one recovering thread.
 */
public final class LogReader {
    private final RandomReadFile file;
    private final Path path;
    private final long size;
    /** The block holding {@link #pos}, little-endian, and where it starts in the file (-1: none). */
    private final byte[] block = new byte[LogFormat.BLOCK_SIZE];
    private long blockStart = -1;
    private int blockLength;
    private long pos;
    /** Where reading began: no byte before it is read (a reader {@linkplain #resume resumed} there). */
    private final long floor;
    /** The offset just past the last complete record returned (the header record included); 0 before. */
    private long consumed;
    private long droppedTailBytes;
    private long lastRecordOffset;
    private long firstFragmentOffset;

    /**
     * Checks the file's header record. An empty file, or one whose header record is itself torn,
     * is a log with no records (a crash right after the file was created).
     *
     * @throws CorruptionException when the header names another kind of file
     * @throws FormatVersionException when the file is of a format version this build cannot read
     */
    public LogReader(RandomReadFile file, Path path, long magic) throws IOException {
        this(file, path, 0L, magic);
    }

    /** A reader from {@code offset} on: the header's check (for {@code magic}) only from the start. */
    private LogReader(RandomReadFile file, Path path, long offset, long magic) throws IOException {
        this.file = file;
        this.path = path;
        this.size = file.size();
        this.floor = offset;
        this.pos = offset;
        this.consumed = offset;
        if (offset > 0) {
            return;
        }
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

    /**
     * A reader of the records from {@code offset} on, a {@link #position()} an earlier reader of
     * this log reached (its header already checked), reading nothing before it: how a follower of a
     * log another process appends to reads on ({@code io.bloomstore.core.db.WalTail}).
     *
     * @throws IllegalArgumentException when {@code offset} lies past the file's end (it shrank)
     */
    public static LogReader resume(RandomReadFile file, Path path, long offset) throws IOException {
        if (offset <= 0) {
            throw new IllegalArgumentException(path + ": a log is resumed past its header, not at " + offset);
        }
        LogReader r = new LogReader(file, path, offset, 0L);
        if (offset > r.size) {
            throw new IllegalArgumentException(path + ": cannot resume at " + offset + " of " + r.size + " bytes");
        }
        return r;
    }

    /**
     * The offset just past the last complete record {@link #next()} returned (the header record
     * included), where a {@linkplain #resume resumed} reader would go on; 0 before the first. A
     * dropped torn tail lies past it.
     */
    public long position() {
        return consumed;
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
    public byte[] next() throws IOException {
        ByteArrayOutputStream assembling = null;
        while (true) {
            int blockRemaining = (int) (LogFormat.BLOCK_SIZE - pos % LogFormat.BLOCK_SIZE);
            if (blockRemaining < LogFormat.HEADER_SIZE) {
                pos += blockRemaining;
                continue;
            }
            if (pos >= size) {
                if (assembling != null) {
                    dropTail(firstFragmentOffset, size);
                }
                return null;
            }
            long start = pos;
            if (start + LogFormat.HEADER_SIZE > size) {
                dropTail(start);
                return null;
            }
            loadBlock(start);
            int at = (int) (start - blockStart);
            int crc = crcAt(at);
            int length = lengthAt(at);
            int type = block[at + 6] & 0xff;
            long end = start + LogFormat.HEADER_SIZE + length;
            if (end > start + blockRemaining) {
                // Fragments never cross blocks, and a torn write leaves honest lengths: damage.
                throw new CorruptionException(path, start, "fragment length " + length + " crosses a block boundary");
            }
            if (end > size) {
                dropTail(start);
                return null;
            }
            if (type == 0 && length == 0 && crc == 0) {
                fail(start, true, "zero-filled space inside the log");
                return null;
            }
            int actual = LogFormat.checksum(type, block, at + LogFormat.HEADER_SIZE, length);
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
                    consumed = end;
                    byte[] out = new byte[length];
                    System.arraycopy(block, at + LogFormat.HEADER_SIZE, out, 0, length);
                    return out;
                case LogFormat.FIRST:
                    if (assembling != null) {
                        fail(start, isTail(end), "FIRST fragment inside a FIRST..LAST record");
                        return null;
                    }
                    firstFragmentOffset = start;
                    assembling = new ByteArrayOutputStream(length * 2);
                    assembling.write(block, at + LogFormat.HEADER_SIZE, length);
                    break;
                case LogFormat.MIDDLE:
                case LogFormat.LAST:
                    if (assembling == null) {
                        fail(start, isTail(end), "fragment type " + type + " without a FIRST fragment");
                        return null;
                    }
                    assembling.write(block, at + LogFormat.HEADER_SIZE, length);
                    if (type == LogFormat.LAST) {
                        lastRecordOffset = firstFragmentOffset;
                        consumed = end;
                        return assembling.toByteArray();
                    }
                    break;
                default:
                    fail(start, isTail(end), "unknown fragment type " + type);
                    return null;
            }
        }
    }

    /**
     * The checksum of the fragment header at {@code at} in the block (little-endian). Byte
     * arithmetic, not a little-endian ByteBuffer view: a fresh JVM replays a WAL in the
     * interpreter, where each view read is a chain of calls (3.6 ms of a one-shot command's
     * replay of 1.6 MB).
     */
    private int crcAt(int at) {
        return (block[at] & 0xFF) | (block[at + 1] & 0xFF) << 8 | (block[at + 2] & 0xFF) << 16
                | (block[at + 3] & 0xFF) << 24;
    }

    /** The payload length of the fragment header at {@code at} (unsigned little-endian 16 bits). */
    private int lengthAt(int at) {
        return (block[at + 4] & 0xFF) | (block[at + 5] & 0xFF) << 8;
    }

    /**
     * Makes {@link #block} hold the block containing file offset {@code offset} (at or past
     * {@link #floor}): the bytes from the floor on, as nothing before it is ever looked at.
     */
    private void loadBlock(long offset) throws IOException {
        long start = offset - offset % LogFormat.BLOCK_SIZE;
        if (start == blockStart) {
            return;
        }
        blockLength = (int) Math.min(LogFormat.BLOCK_SIZE, size - start);
        int skip = (int) Math.max(0, floor - start);
        file.readFully(start + skip, ByteBuffer.wrap(block, skip, blockLength - skip));
        blockStart = start;
    }

    /** Whether nothing but zeroes follows {@code offset}: the damage is the log's torn tail. */
    private boolean isTail(long offset) throws IOException {
        for (long o = offset; o < size; o = blockStart + blockLength) {
            loadBlock(o);
            for (int i = (int) (o - blockStart); i < blockLength; i++) {
                if (block[i] != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    private void failMismatch(long start, long end, int expected, int actual) throws IOException {
        if (isTail(end)) {
            dropTail(start);
            return;
        }
        throw CorruptionException.mismatch(path, start, "record checksum", expected & 0xffffffffL,
                actual & 0xffffffffL);
    }

    private void fail(long start, boolean tail, String message) throws IOException {
        if (tail) {
            dropTail(start);
            return;
        }
        throw new CorruptionException(path, start, message);
    }

    private void dropTail(long from) throws IOException {
        dropTail(from, from + 1);
    }

    /**
     * Drops the log from {@code from} on as a torn tail, unless an intact fragment starts at or
     * after {@code scanFrom}: a crash tears only the last write, so damage followed by a fragment
     * whose CRC holds (a flipped length or type byte, say) is corruption, not a torn tail.
     */
    private void dropTail(long from, long scanFrom) throws IOException {
        long intact = intactFragmentFrom(scanFrom);
        if (intact >= 0) {
            throw new CorruptionException(path, from, "damaged fragment followed by an intact one at offset " + intact);
        }
        droppedTailBytes = size - from;
        pos = size;
    }

    /**
     * The offset of the first fragment at or after {@code from} whose type is valid, which fits
     * its block and the file, and whose CRC holds; -1 when there is none. Called only at damage
     * that is followed by nothing but zeroes or lies in the last block, so the scan is short.
     */
    private long intactFragmentFrom(long from) throws IOException {
        for (long o = from; o + LogFormat.HEADER_SIZE <= size; ) {
            loadBlock(o);
            int at = (int) (o - blockStart);
            if (at + LogFormat.HEADER_SIZE > blockLength) {
                o = blockStart + blockLength;
                continue;
            }
            int type = block[at + 6] & 0xff;
            if (type >= LogFormat.FULL && type <= LogFormat.LAST) {
                int length = lengthAt(at);
                int end = at + LogFormat.HEADER_SIZE + length;
                if (end <= blockLength
                        && LogFormat.checksum(type, block, at + LogFormat.HEADER_SIZE, length) == crcAt(at)) {
                    return o;
                }
            }
            o++;
        }
        return -1;
    }
}
