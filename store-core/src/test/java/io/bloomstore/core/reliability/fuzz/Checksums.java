package io.bloomstore.core.reliability.fuzz;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Repairs the checksums of a damaged file, so that the fuzzer's input gets past them and reaches
 * the parsing behind: lengths, counts, offsets and payloads that only a checksum kept out
 * before. Formats: docs/format/*.md (all little-endian). An input repaired this way may read as
 * other content than its seed's; only the reader's failure modes are checked then.
 *
 * <p>Thread safety: stateless.
 */
final class Checksums {
    private static final int LOG_BLOCK = 32 * 1024;
    private static final int LOG_HEADER = 7;
    private static final int LOG_MASK_DELTA = 0xa282ead8;

    private Checksums() {
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static int crc(byte[] b, int from, int length) {
        CRC32C c = new CRC32C();
        c.update(b, from, length);
        return (int) c.getValue();
    }

    private static boolean fits(byte[] b, long from, long length) {
        return from >= 0 && length >= 0 && from + length <= b.length && from + length >= from;
    }

    /** COUNTERS: the CRC32C of everything before it, in the last 4 bytes. */
    static byte[] counters(byte[] b) {
        if (b.length >= 4) {
            le(b).putInt(b.length - 4, crc(b, 0, b.length - 4));
        }
        return b;
    }

    /** A WAL segment or MANIFEST: each fragment's masked CRC32C of its type and payload. */
    static byte[] log(byte[] b) {
        ByteBuffer buf = le(b);
        int pos = 0;
        while (pos + LOG_HEADER <= b.length) {
            int blockRemaining = LOG_BLOCK - pos % LOG_BLOCK;
            if (blockRemaining < LOG_HEADER) {
                pos += blockRemaining;
                continue;
            }
            int length = Short.toUnsignedInt(buf.getShort(pos + 4));
            if (length > blockRemaining - LOG_HEADER || !fits(b, pos + LOG_HEADER, length)) {
                break;
            }
            CRC32C c = new CRC32C();
            c.update(b[pos + 6]);
            c.update(b, pos + LOG_HEADER, length);
            int crc = (int) c.getValue();
            buf.putInt(pos, ((crc >>> 15) | (crc << 17)) + LOG_MASK_DELTA);
            pos += LOG_HEADER + length;
        }
        return b;
    }

    /** An SSTable laid out as its seed: each block's CRC32C of payload and type, and the footer's. */
    static byte[] table(byte[] b, List<long[]> blocks) {
        ByteBuffer buf = le(b);
        for (long[] block : blocks) {
            if (block[1] >= 4 && fits(b, block[0], block[1])) {
                int at = (int) block[0];
                int end = (int) (block[0] + block[1]);
                buf.putInt(end - 4, crc(b, at, end - 4 - at));
            }
        }
        if (b.length >= 48) {
            int footer = b.length - 48;
            buf.putInt(footer + 36, crc(b, footer, 36));
        }
        return b;
    }

    /** A filter sidecar: a single filter image, or a set's header, directory and every section. */
    static byte[] filter(byte[] b) {
        if (b.length < 64) {
            return b;
        }
        ByteBuffer buf = le(b);
        if (buf.getShort(4) != 2) {
            image(b, 0);
            return b;
        }
        int dirLength = buf.getInt(8);
        if (dirLength >= 4 && fits(b, 64, dirLength)) {
            int end = 60 + dirLength;
            for (int p = 64; p + 18 <= end; ) {
                int descriptor = Byte.toUnsignedInt(b[p + 1]);
                long offset = buf.getLong(p + 2);
                if (offset >= 0 && offset < b.length) {
                    image(b, (int) offset);
                }
                p += 18 + descriptor;
            }
            buf.putInt(end, crc(b, 64, dirLength - 4));
        }
        buf.putInt(60, crc(b, 0, 60));
        return b;
    }

    /** One filter image at {@code at}: its payload CRC, then its header CRC. */
    private static void image(byte[] b, int at) {
        if (!fits(b, at, 64)) {
            return;
        }
        ByteBuffer buf = le(b);
        long payload = buf.getLong(at + 40);
        if (payload >= 0 && payload < b.length && fits(b, at + 64L, payload + 4)) {
            buf.putInt(at + 64 + (int) payload, crc(b, at + 64, (int) payload));
        }
        buf.putInt(at + 60, crc(b, at, 60));
    }
}
