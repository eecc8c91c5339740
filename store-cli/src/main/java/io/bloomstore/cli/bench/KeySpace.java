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
 * <p>With a prefix structure ({@link ScanConfig#prefixBytes()} P &gt; 0, K keys per prefix), key
 * i is in prefix group g = i / K at position j = i mod K:
 *
 * <pre>
 *   bytes 0..P-1   big-endian 2·g (loaded and missing keys) or 2·g + 1 (missing prefixes)
 *   bytes P..P+3   big-endian (2·j) · 2^11 (loaded keys) or (2·j + 1) · 2^11 (missing keys)
 *   bytes P+4..    filler
 * </pre>
 *
 * so the first 8 bytes hold the prefix and the ordinal, and after each loaded key lie 2^11 − 1
 * numbers of those 8 bytes with no key: the empty ranges of rangemissing.
 *
 * <p>Thread safety: immutable; the {@code fill*} methods write only into the caller's buffer.
 */
public final class KeySpace {
    /** The 8-byte ordinal that makes keys unique and ordered. */
    public static final int MIN_KEY_SIZE = 8;

    private final int keys;
    private final int keySize;
    private final ScanConfig scans;

    public KeySpace(int keys, int keySize) {
        this(keys, keySize, ScanConfig.none());
    }

    /** Keys with the prefix structure of {@code scans} (none when its prefix bytes are 0). */
    public KeySpace(int keys, int keySize, ScanConfig scans) {
        if (keys <= 0 || keySize < MIN_KEY_SIZE) {
            throw new IllegalArgumentException("need keys > 0 and key size >= " + MIN_KEY_SIZE + ": " + keys + ", " + keySize);
        }
        if (scans.hasPrefixes() && keySize < scans.prefixBytes() + 4) {
            throw new IllegalArgumentException("key size " + keySize + " leaves no room for a " + scans.prefixBytes()
                    + "-byte prefix and a 4-byte ordinal");
        }
        if (scans.hasPrefixes() && (long) (keys - 1) / scans.keysPerPrefix() * 2 + 1 >= 1L << (8 * scans.prefixBytes())) {
            throw new IllegalArgumentException(keys + " keys at " + scans.keysPerPrefix() + " per prefix need more than "
                    + scans.prefixBytes() + " prefix bytes");
        }
        this.keys = keys;
        this.keySize = keySize;
        this.scans = scans;
    }

    /** Prefix groups of the loaded keys: ⌈keys / keysPerPrefix⌉. REQUIRES: a prefix structure. */
    public int prefixes() {
        return (keys + scans.keysPerPrefix() - 1) / scans.keysPerPrefix();
    }

    public byte[] newPrefixBuffer() {
        return new byte[scans.prefixBytes()];
    }

    /** Writes prefix {@code group} (every loaded key has one) or, {@code missing}, the empty prefix after it. */
    public void prefix(int group, boolean missing, byte[] out) {
        writePrefix(2L * group + (missing ? 1 : 0), out);
    }

    /** A range bound: prefix and 4-byte ordinal (bytes {@code 0..P+3}), for a range of ordinals. */
    public byte[] newBoundBuffer() {
        return new byte[scans.prefixBytes() + 4];
    }

    /**
     * The range of {@link ScanConfig#rangeLength()} numbers starting at loaded key {@code index}'s
     * ordinal ({@code justPast} false: it holds that key) or just past it (true: it holds none):
     * [from, to) as key bounds.
     */
    public void range(int index, boolean justPast, byte[] from, byte[] to) {
        checkIndex(index);
        int g = index / scans.keysPerPrefix();
        long ordinal = (2L * (index % scans.keysPerPrefix()) << ScanConfig.GAP_BITS) + (justPast ? 1 : 0);
        writePrefix(2L * g, from);
        writePrefix(2L * g, to);
        writeOrdinal(ordinal, from);
        writeOrdinal(ordinal + scans.rangeLength(), to);
    }

    private void writePrefix(long value, byte[] out) {
        int p = scans.prefixBytes();
        for (int b = 0; b < p; b++) {
            out[b] = (byte) (value >>> (8 * (p - 1 - b)));
        }
    }

    private void writeOrdinal(long ordinal, byte[] out) {
        int p = scans.prefixBytes();
        for (int b = 0; b < 4; b++) {
            out[p + b] = (byte) (ordinal >>> (8 * (3 - b)));
        }
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

    /**
     * Writes key {@code j} of those inserted after the load (readlatest's inserts) into {@code out}:
     * present-key encodings past the loaded ones, so no other workload's key ever equals one.
     */
    public void inserted(long j, byte[] out) {
        if (j < 0) {
            throw new IllegalArgumentException("inserted key " + j + " is negative");
        }
        encode(2L * (keys + j), out);
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
        if (scans.hasPrefixes()) {
            // ordinal = 2·i (+1 for a missing key): the missing flag moves into the in-prefix ordinal.
            long i = ordinal >>> 1;
            writePrefix(2 * (i / scans.keysPerPrefix()), out);
            writeOrdinal((2 * (i % scans.keysPerPrefix()) + (ordinal & 1)) << ScanConfig.GAP_BITS, out);
            long filler = mix(ordinal);
            for (int b = scans.prefixBytes() + 4; b < keySize; b++) {
                out[b] = (byte) (filler >>> (8 * (b & 7)));
            }
            return;
        }
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
