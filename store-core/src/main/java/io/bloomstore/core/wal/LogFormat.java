package io.bloomstore.core.wal;

import java.util.zip.CRC32C;

/**
 * Constants and checksum helpers of the record log shared by WAL segments and the MANIFEST:
 * 32 KiB blocks of records, each {@code crc32c(4) length(2) type(1) payload}, as specified in
 * {@code docs/format/wal.md}.
 *
 * <p>Thread safety: stateless.
 */
public final class LogFormat {
    public static final int BLOCK_SIZE = 32 * 1024;
    public static final int HEADER_SIZE = 4 + 2 + 1;

    /** Fragment types; written to disk, never renumber. Zero is reserved for zero-filled space. */
    public static final int FULL = 1;
    public static final int FIRST = 2;
    public static final int MIDDLE = 3;
    public static final int LAST = 4;

    /** Magic at the start of the header record of a WAL segment ("BSWAL" + 0x00). */
    public static final long WAL_MAGIC = 0x4253_5741_4c00L;
    /** Magic at the start of the header record of a MANIFEST ("BSMANI"). */
    public static final long MANIFEST_MAGIC = 0x4253_4d41_4e49L;
    /** Format version of WAL segments and MANIFESTs written by this build. */
    public static final int FORMAT_VERSION = 1;

    private static final int MASK_DELTA = 0xa282ead8;

    private LogFormat() {
    }

    /** CRC32C of the type byte followed by the payload, masked. */
    static int checksum(int type, byte[] payload, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(type);
        crc.update(payload, offset, length);
        return mask((int) crc.getValue());
    }

    /** Writes {@code v} little-endian at {@code b[at, at + 4)}. */
    static void putFixed32(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    /** Writes {@code v} little-endian at {@code b[at, at + 8)}. */
    static void putFixed64(byte[] b, int at, long v) {
        putFixed32(b, at, (int) v);
        putFixed32(b, at + 4, (int) (v >>> 32));
    }

    /**
     * Masks a CRC as LevelDB does (rotate right by 15, add a constant), so that a CRC computed
     * over bytes that themselves contain CRCs does not degenerate.
     */
    static int mask(int crc) {
        return ((crc >>> 15) | (crc << 17)) + MASK_DELTA;
    }
}
