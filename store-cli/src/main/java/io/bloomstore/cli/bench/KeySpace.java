package io.bloomstore.cli.bench;

import java.util.SplittableRandom;

/**
 * The keys of a benchmark run. Key {@code i} of the loaded set ({@code 0 ≤ i < keys}) and
 * missing key {@code i} have the same format and interleave in sort order, so a missing key
 * falls inside the key range of the tables and only a filter (or a disk read) can tell that
 * it is absent. Layout of a key of {@code keySize} bytes:
 *
 * <pre>
 *   bytes 0..7   big-endian 2·i (loaded keys) or 2·i + 1 (missing keys)
 *   bytes 8..    filler derived from that number, so longer keys are not mostly zeros
 * </pre>
 *
 * Loaded keys in index order are therefore in ascending byte order (what fillseq writes).
 *
 * <p>Thread safety: immutable; the {@code fill*} methods write only into the caller's buffer.
 */
public final class KeySpace {
    /** The 8-byte ordinal that makes keys unique and ordered. */
    public static final int MIN_KEY_SIZE = 8;

    private final int keys;
    private final int keySize;

    public KeySpace(int keys, int keySize) {
        if (keys <= 0 || keySize < MIN_KEY_SIZE) {
            throw new IllegalArgumentException("need keys > 0 and key size >= " + MIN_KEY_SIZE + ": " + keys + ", " + keySize);
        }
        this.keys = keys;
        this.keySize = keySize;
    }

    public int keys() {
        return keys;
    }

    public byte[] newKeyBuffer() {
        return new byte[keySize];
    }

    /** Writes loaded key {@code index} into {@code out}. */
    public void present(int index, byte[] out) {
        encode(2L * checkIndex(index), out);
    }

    /** Writes missing key {@code index}, which no fill ever writes, into {@code out}. */
    public void missing(int index, byte[] out) {
        encode(2L * checkIndex(index) + 1, out);
    }

    /** A random permutation of the key indices: the order fillrandom writes in. */
    public int[] shuffledIndices(long seed) {
        int[] order = new int[keys];
        for (int i = 0; i < keys; i++) {
            order[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = keys - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    private int checkIndex(int index) {
        if (index < 0 || index >= keys) {
            throw new IllegalArgumentException("key index " + index + " outside [0, " + keys + ")");
        }
        return index;
    }

    private void encode(long ordinal, byte[] out) {
        for (int b = 0; b < 8; b++) {
            out[b] = (byte) (ordinal >>> (56 - 8 * b));
        }
        long filler = mix(ordinal);
        for (int b = 8; b < keySize; b++) {
            out[b] = (byte) (filler >>> (8 * (b & 7)));
        }
    }

    /** SplitMix64's finaliser: a cheap bijective scramble. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
