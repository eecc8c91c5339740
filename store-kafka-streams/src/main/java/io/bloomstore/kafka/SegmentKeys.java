package io.bloomstore.kafka;

import io.bloomstore.core.PrefixExtractor;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * The keys of a time segment's BloomStore (window and session stores): the user key escaped and
 * terminated, then fixed-size big-endian numbers.
 * <pre>
 *   window:  escape(key) 0x00 start:u64 seq:u32
 *   session: escape(key) 0x00 end:u64 start:u64
 *   escape:  0x00 → 0x01 0x01, 0x01 → 0x01 0x02, any other byte as is
 * </pre>
 * Timestamps are stored with the sign bit flipped ({@code t ^ Long.MIN_VALUE}), so unsigned byte
 * order is numeric order, negative times included.
 *
 * <p>Why escaped: the escaped key never contains 0x00, and its bytes are all at least 0x01, so
 * (1) the 0x00 after it ends it unambiguously, which makes {@code escape(key) 0x00} the key's
 * prefix under {@link PrefixExtractor#upTo(byte) upTo(0x00)}: each table's prefix filter then
 * holds its distinct keys, and a fetch of one key (a scan between two stored keys of that key)
 * skips every table whose prefix filter says the key is absent, before reading any block; and
 * (2) stored keys sort by user key in Kafka's unsigned lexicographic order (a key before its
 * extensions, since 0x00 sorts below every escaped byte), then by time: so a key range is one
 * contiguous scan, in the order of Kafka's RocksDB segments.
 *
 * <p>Thread safety: stateless.
 */
final class SegmentKeys {
    static final byte TERMINATOR = 0x00;
    private static final byte ESCAPE = 0x01;
    /** The prefix extractor every segment's BloomStore is opened with. */
    static final PrefixExtractor PREFIX = PrefixExtractor.upTo(TERMINATOR);

    private SegmentKeys() {
    }

    /** {@code escape(key) 0x00} followed by {@code suffixBytes} zero bytes to fill in. */
    private static ByteBuffer withPrefix(byte[] key, int suffixBytes) {
        int escaped = key.length;
        for (byte b : key) {
            if (b == 0x00 || b == ESCAPE) {
                escaped++;
            }
        }
        ByteBuffer buf = ByteBuffer.allocate(escaped + 1 + suffixBytes);
        for (byte b : key) {
            if (b == 0x00 || b == ESCAPE) {
                buf.put(ESCAPE).put((byte) (b + 1));
            } else {
                buf.put(b);
            }
        }
        return buf.put(TERMINATOR);
    }

    /** The stored key of a window store entry. */
    static byte[] window(byte[] key, long start, int seq) {
        return withPrefix(key, Long.BYTES + Integer.BYTES).putLong(start ^ Long.MIN_VALUE).putInt(seq).array();
    }

    /** The smallest stored key of {@code key} at time {@code time} or later (window or session). */
    static byte[] atTime(byte[] key, long time) {
        return withPrefix(key, Long.BYTES).putLong(time ^ Long.MIN_VALUE).array();
    }

    /** The stored key of a session store entry. */
    static byte[] session(byte[] key, long start, long end) {
        return withPrefix(key, 2 * Long.BYTES).putLong(end ^ Long.MIN_VALUE).putLong(start ^ Long.MIN_VALUE).array();
    }

    /** Inclusive lower bound of the stored keys of every key ≥ {@code key}. */
    static byte[] keyLowerBound(byte[] key) {
        return withPrefix(key, 0).array();
    }

    /**
     * Exclusive upper bound of the stored keys of every key ≤ {@code key}: {@code escape(key) 0x01},
     * above every {@code escape(key) 0x00 ...} and below the escape of any longer key (whose next
     * escaped byte is at least 0x01 and is followed by more bytes).
     */
    static byte[] keyUpperBound(byte[] key) {
        byte[] b = withPrefix(key, 0).array();
        b[b.length - 1] = 0x01;
        return b;
    }

    /** The position of the terminator: the escaped key's length. */
    private static int terminator(byte[] stored) {
        for (int i = 0; i < stored.length; i++) {
            if (stored[i] == TERMINATOR) {
                return i;
            }
        }
        throw new IllegalStateException("stored key without terminator: " + stored.length + " bytes");
    }

    /** The user key of a stored key. */
    static byte[] userKey(byte[] stored) {
        int end = terminator(stored);
        ByteArrayOutputStream out = new ByteArrayOutputStream(end);
        for (int i = 0; i < end; i++) {
            byte b = stored[i];
            if (b == ESCAPE) {
                out.write(stored[++i] - 1);
            } else {
                out.write(b);
            }
        }
        return out.toByteArray();
    }

    /** The first timestamp after the key: a window's start, a session's end. */
    static long firstTime(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(terminator(stored) + 1) ^ Long.MIN_VALUE;
    }

    /** A session's start: the second timestamp after the key. */
    static long secondTime(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(terminator(stored) + 1 + Long.BYTES) ^ Long.MIN_VALUE;
    }

    /** A window entry's sequence number. */
    static int seq(byte[] stored) {
        return ByteBuffer.wrap(stored).getInt(stored.length - Integer.BYTES);
    }
}
