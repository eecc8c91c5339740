package io.bloomstore.core.wal;

import io.bloomstore.bloom.CorruptionException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads the fields {@link RecordBuffer} writes, from one record whose checksum already passed. A
 * field running past the record's end means the writer and reader disagree on the format (or the
 * record was damaged before its CRC was computed): a {@link CorruptionException} naming the file
 * and the offset of the record.
 *
 * <p>Thread safety: not thread-safe.
 */
public final class RecordParser {
    private final byte[] data;
    private final Path file;
    private final long recordOffset;
    private int pos;

    public RecordParser(byte[] data, Path file, long recordOffset) {
        this.data = data;
        this.file = file;
        this.recordOffset = recordOffset;
    }

    public boolean hasRemaining() {
        return pos < data.length;
    }

    public int getByte() throws CorruptionException {
        need(1);
        return data[pos++] & 0xff;
    }

    public int getFixed32() throws CorruptionException {
        need(4);
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v |= (data[pos++] & 0xff) << (8 * i);
        }
        return v;
    }

    public long getFixed64() throws CorruptionException {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (data[pos++] & 0xffL) << (8 * i);
        }
        return v;
    }

    public long getVarint() throws CorruptionException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = getByte();
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw corrupt("varint longer than 10 bytes");
    }

    public int getVarint32() throws CorruptionException {
        long v = getVarint();
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw corrupt("length " + v + " out of range");
        }
        return (int) v;
    }

    public byte[] getBytes() throws CorruptionException {
        int n = getVarint32();
        need(n);
        byte[] out = Arrays.copyOfRange(data, pos, pos + n);
        pos += n;
        return out;
    }

    public CorruptionException corrupt(String message) {
        return new CorruptionException(file, recordOffset, message + " (at byte " + pos + " of the record)");
    }

    private void need(int n) throws CorruptionException {
        if (n > data.length - pos) {
            throw corrupt("field runs past the end of the record");
        }
    }
}
