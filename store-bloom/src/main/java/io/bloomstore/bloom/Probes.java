package io.bloomstore.bloom;

/**
 * Probe arithmetic shared by the Bloom kinds: turning one 64-bit hash into k indexes by
 * double hashing (Kirsch &amp; Mitzenmacher), so a query costs O(k + key length).
 */
final class Probes {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Probes() {
    }

    /** The second hash for double hashing: the halves swapped and remixed, forced odd. */
    static long second(long hash) {
        return (Long.rotateLeft(hash, 32) * GOLDEN) | 1L;
    }

    /** Maps a 64-bit value uniformly onto [0, range) without division (Lemire's reduction). */
    static long reduce(long value, long range) {
        // Unsigned high 64 bits of value × range; range is positive.
        return Math.multiplyHigh(value, range) + ((value >> 63) & range);
    }
}
