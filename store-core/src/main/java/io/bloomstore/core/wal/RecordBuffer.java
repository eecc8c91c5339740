package io.bloomstore.core.wal;

import java.util.Arrays;

/**
 * A growable little-endian byte buffer with LEB128 varints, for encoding log records (write
 * batches and version edits).
 *
 * <p>Thread safety: not thread-safe.
 */
public final class RecordBuffer {
    private byte[] buf;
    private int size;

    public RecordBuffer(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    public RecordBuffer putByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
        return this;
    }

    public RecordBuffer putFixed32(int v) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            buf[size++] = (byte) (v >>> (8 * i));
        }
        return this;
    }

    public RecordBuffer putFixed64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            buf[size++] = (byte) (v >>> (8 * i));
        }
        return this;
    }

    /** Unsigned LEB128: seven bits per byte, low bits first, high bit set on all but the last. */
    public RecordBuffer putVarint(long v) {
        ensure(10);
        while ((v & ~0x7fL) != 0) {
            buf[size++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
        return this;
    }

    /** A varint length followed by the bytes. */
    public RecordBuffer putBytes(byte[] bytes) {
        putVarint(bytes.length);
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, size, bytes.length);
        size += bytes.length;
        return this;
    }

    /**
     * A varint length followed by the bytes and then {@code stamp} as a big-endian fixed64 (counted
     * in the length): a timed value ({@code EntryRules}).
     */
    public RecordBuffer putStampedBytes(byte[] bytes, long stamp) {
        putVarint(bytes.length + 8L);
        ensure(bytes.length + 8);
        System.arraycopy(bytes, 0, buf, size, bytes.length);
        size += bytes.length;
        for (int i = 0; i < 8; i++) {
            buf[size++] = (byte) (stamp >>> (56 - 8 * i));
        }
        return this;
    }

    /** Overwrites four bytes at {@code offset} (for counts known only at the end). */
    public void setFixed32(int offset, int v) {
        for (int i = 0; i < 4; i++) {
            buf[offset + i] = (byte) (v >>> (8 * i));
        }
    }

    /** Empties the buffer, keeping its capacity. */
    public void clear() {
        size = 0;
    }

    public int capacity() {
        return buf.length;
    }

    public int size() {
        return size;
    }

    public byte[] array() {
        return buf;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    private void ensure(int n) {
        if (size + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
        }
    }
}
