package io.bloomstore.bloom;

/**
 * Probe arithmetic shared by the Bloom kinds: turning one 64-bit hash into k indexes by
 * double hashing (Kirsch &amp; Mitzenmacher), so a query costs O(k + key length).
 */
final class Probes {
    static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Probes() {
    }

    /** The second hash for double hashing: the halves swapped and remixed, forced odd. */
    static long second(long hash) {
        return (Long.rotateLeft(hash, 32) * GOLDEN) | 1L;
    }

    /**
     * A bijective 64-bit finalizer (Stafford's variant 13 of MurmurHash3's fmix64): every
     * output bit depends on every input bit, so disjoint bit fields of the result serve as
     * independent probes.
     */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Maps a 64-bit value uniformly onto [0, range) without division (Lemire's reduction). */
    static long reduce(long value, long range) {
        // Unsigned high 64 bits of value × range; range is positive.
        return Math.multiplyHigh(value, range) + ((value >> 63) & range);
    }
}
