package io.bloomstore.core.table;

import java.util.Arrays;

import io.bloomstore.core.internal.ValueType;

/**
 * Internal keys as SSTable blocks store them: the user key followed by an 8-byte little-endian
 * trailer {@code sequence << 8 | typeCode}. Ordering (the {@link io.bloomstore.core.internal.InternalIterator}
 * order): user keys ascending as unsigned bytes, then trailers descending, so the newest
 * version of a key comes first. See docs/format/sstable.md.
 *
 * <p>Thread safety: stateless.
 */
public final class InternalKeys {
    public static final int TRAILER_BYTES = 8;
    /** Sequence numbers occupy the trailer's upper 56 bits. */
    public static final long MAX_SEQUENCE = (1L << 56) - 1;

    private InternalKeys() {
    }

    public static long packTrailer(long sequence, ValueType type) {
        return sequence << 8 | type.code();
    }

    /** The internal key of ({@code userKey}, {@code sequence}, {@code type}). */
    public static byte[] encode(byte[] userKey, long sequence, ValueType type) {
        return encode(userKey, packTrailer(sequence, type));
    }

    static byte[] encode(byte[] userKey, long trailer) {
        byte[] k = Arrays.copyOf(userKey, userKey.length + TRAILER_BYTES);
        putTrailer(k, userKey.length, trailer);
        return k;
    }

    /**
     * {@code userKey} with {@code trailer} into {@code into}, when it is exactly that long; else into
     * a new array. Returns the array written.
     */
    static byte[] encodeInto(byte[] userKey, long trailer, byte[] into) {
        int n = userKey.length + TRAILER_BYTES;
        byte[] k = into != null && into.length == n ? into : new byte[n];
        System.arraycopy(userKey, 0, k, 0, userKey.length);
        putTrailer(k, userKey.length, trailer);
        return k;
    }

    /**
     * The smallest internal key for {@code userKey} visible at {@code sequence}: it sorts
     * before every entry of that user key with a sequence number ≤ {@code sequence}.
     */
    public static byte[] seekKey(byte[] userKey, long sequence) {
        return encode(userKey, sequence << 8 | 0xFF);
    }

    /** The largest internal key of {@code userKey}: it sorts after all of its versions. */
    static byte[] lastKeyOf(byte[] userKey) {
        return encode(userKey, 0L);
    }

    public static byte[] userKey(byte[] internalKey) {
        return Arrays.copyOf(internalKey, internalKey.length - TRAILER_BYTES);
    }

    public static long trailer(byte[] internalKey) {
        return trailer(internalKey, 0, internalKey.length);
    }

    static long trailer(byte[] buf, int offset, int length) {
        long t = 0;
        int end = offset + length;
        for (int i = 1; i <= TRAILER_BYTES; i++) {
            t = t << 8 | (buf[end - i] & 0xFF);
        }
        return t;
    }

    private static void putTrailer(byte[] buf, int at, long trailer) {
        for (int i = 0; i < TRAILER_BYTES; i++) {
            buf[at + i] = (byte) (trailer >>> (8 * i));
        }
    }

    public static int compare(byte[] a, byte[] b) {
        return compare(a, 0, a.length, b, 0, b.length);
    }

    /** Compares two internal keys held in array ranges; each range is at least 8 bytes long. */
    static int compare(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        int c = Arrays.compareUnsigned(a, aOff, aOff + aLen - TRAILER_BYTES, b, bOff, bOff + bLen - TRAILER_BYTES);
        if (c != 0) {
            return c;
        }
        return Long.compareUnsigned(trailer(b, bOff, bLen), trailer(a, aOff, aLen));
    }

    /** Compares the user-key part of an internal key with a user key. */
    static int compareUserKey(byte[] internalKey, byte[] userKey) {
        return Arrays.compareUnsigned(internalKey, 0, internalKey.length - TRAILER_BYTES, userKey, 0, userKey.length);
    }
}
