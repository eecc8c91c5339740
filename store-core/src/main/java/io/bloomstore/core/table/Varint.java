package io.bloomstore.core.table;

import java.io.ByteArrayOutputStream;

/**
 * Unsigned LEB128 varints (LevelDB's varint32/varint64) used inside blocks. Decoding is
 * bounds-checked and reports malformed input by returning -1 from {@link #read32}, so block
 * parsers turn garbage into a corruption error instead of an exception from decoding.
 *
 * <p>Thread safety: stateless.
 */
final class Varint {
    private Varint() {
    }

    /** Most bytes a value of up to 32 bits takes. */
    static final int MAX_BYTES_32 = 5;

    /** Writes {@code value} at {@code buf[pos]}, which must have room; returns the position after it. */
    static int write(byte[] buf, int pos, long value) {
        while ((value & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[pos++] = (byte) value;
        return pos;
    }

    static void write(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }

    /**
     * Reads a varint of at most 31 bits at {@code pos[0]} before {@code limit}; advances
     * {@code pos[0]}. Returns -1 (leaving {@code pos[0]} unspecified) when it is truncated or too big.
     */
    static int read32(byte[] buf, int[] pos, int limit) {
        long v = read(buf, pos, limit, 5);
        return v > Integer.MAX_VALUE ? -1 : (int) v;
    }

    /** As {@link #read32} for values up to 63 bits. */
    static long read64(byte[] buf, int[] pos, int limit) {
        return read(buf, pos, limit, 9);
    }

    private static long read(byte[] buf, int[] pos, int limit, int maxBytes) {
        long result = 0;
        int p = pos[0];
        for (int i = 0; i < maxBytes; i++) {
            if (p >= limit || p < 0) {
                return -1;
            }
            int b = buf[p++] & 0xFF;
            result |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                pos[0] = p;
                return result;
            }
        }
        return -1;
    }
}
