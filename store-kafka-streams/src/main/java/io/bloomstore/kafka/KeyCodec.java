package io.bloomstore.kafka;

import java.util.Arrays;

/**
 * Maps Kafka's keys into the store's key space and back. Kafka allows an empty key, BloomStore
 * does not, so every user key is stored behind one namespace byte ({@link #DATA}); the store's own
 * bookkeeping (the IQ position) lives behind another ({@link #META}), out of reach of every
 * range, prefix scan and full scan. One leading byte common to all user keys keeps their unsigned
 * lexicographic order, which is the order Kafka's {@code Bytes} comparator defines.
 *
 * <p>Every encoded array is new, so the store never holds an array that Kafka may reuse.
 *
 * <p>Thread safety: stateless.
 */
final class KeyCodec {
    static final byte DATA = 0x00;
    static final byte META = 0x01;
    /** Exclusive upper bound of all user keys. */
    static final byte[] DATA_END = {META};
    /** Inclusive lower bound of all user keys. */
    static final byte[] DATA_START = {DATA};

    private KeyCodec() {
    }

    static byte[] encode(byte[] userKey) {
        byte[] k = new byte[userKey.length + 1];
        k[0] = DATA;
        System.arraycopy(userKey, 0, k, 1, userKey.length);
        return k;
    }

    /** The smallest stored key greater than {@code userKey}: for inclusive upper bounds. */
    static byte[] encodeSuccessor(byte[] userKey) {
        byte[] k = new byte[userKey.length + 2];
        k[0] = DATA;
        System.arraycopy(userKey, 0, k, 1, userKey.length);
        return k;
    }

    static byte[] decode(byte[] storedKey) {
        if (storedKey.length == 0 || storedKey[0] != DATA) {
            throw new IllegalStateException("not a user key: " + Arrays.toString(storedKey));
        }
        return Arrays.copyOfRange(storedKey, 1, storedKey.length);
    }

    static byte[] meta(String name) {
        byte[] n = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] k = new byte[n.length + 1];
        k[0] = META;
        System.arraycopy(n, 0, k, 1, n.length);
        return k;
    }

    /**
     * The exclusive end of the keys starting with {@code prefix}: the prefix with its last byte
     * below 0xFF incremented and what follows dropped; {@link #DATA_END} when every byte is 0xFF.
     */
    static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] k = new byte[i + 2];
                k[0] = DATA;
                System.arraycopy(prefix, 0, k, 1, i + 1);
                k[i + 1]++;
                return k;
            }
        }
        return DATA_END;
    }
}
