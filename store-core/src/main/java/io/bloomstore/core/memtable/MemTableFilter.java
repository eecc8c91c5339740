package io.bloomstore.core.memtable;

/**
 * A whole-key Bloom filter of the keys a {@link MemTable} holds, as RocksDB's memtable Bloom
 * filter ({@code memtable_whole_key_filtering}): a lookup of a key the memtable never took is
 * answered without searching its skip list. Most lookups of a store are of keys in its tables,
 * and each searched the memtable and every immutable one first (some 20 key comparisons each).
 *
 * <p>Cache-line blocked: a key's {@value #PROBES} bits fall in one 512-bit block of the
 * {@code long[]}, picked by the high bits of its hash ({@code Filters.hash}, the hash the tables'
 * filters take, so a lookup computes it once); the bits inside the block come from a mix of the
 * hash. Sized from the memtable's expected bytes, so it never grows: a memtable of small entries
 * gets fewer bits per key and more false positives, which cost a search as before, never a
 * wrong answer. Memtables made without an expected size have none: a read-only open's replayed
 * WAL, and a writable open's first memtable (empty, or the replayed WAL it keeps) until its
 * first switch, so that a short session's writes do not start the key hash for it (a one-shot
 * {@code put} was 13 ms slower with one: the hash's classes). A compiled write path meets the
 * filter only after that switch, and C2 compiles it once more then (measured neutral).
 *
 * <p>Thread safety: one writer (the memtable's) and any number of readers. The writer sets a
 * key's bits before the key's entry is added to the skip list, and a reader that may see the
 * entry has read the sequence number published after it: the bits are visible to every lookup
 * the entry is visible to. Bits are only ever added, so a word read while the writer updates it
 * still holds every bit set before (even were a plain {@code long} access torn).
 */
final class MemTableFilter {
    /** Bits set per key: about 1% false positives at 10 bits per key, 0.1% at 19. */
    static final int PROBES = 6;
    private static final int WORDS_PER_BLOCK = 8;
    /** Smallest filter worth keeping: one block. */
    private static final long MIN_BYTES = WORDS_PER_BLOCK * Long.BYTES;
    /** Largest: 64 MiB of words, whatever the memtable. */
    private static final long MAX_BYTES = 64L << 20;

    private final long[] words;
    private final int blocks;

    private MemTableFilter(int blocks) {
        this.blocks = blocks;
        this.words = new long[blocks * WORDS_PER_BLOCK];
    }

    /**
     * A filter of {@code ratio} × {@code expectedBytes} (in whole blocks), or null when that is
     * less than one block (a memtable made without an expected size, or {@code ratio} 0).
     */
    static MemTableFilter forMemtable(long expectedBytes, double ratio) {
        long bytes = Math.min(MAX_BYTES, (long) (expectedBytes * ratio));
        if (bytes < MIN_BYTES) {
            return null;
        }
        return new MemTableFilter((int) (bytes / MIN_BYTES));
    }

    /** Sets the bits of the key whose hash is {@code hash}. Called by the one writer only. */
    void add(long hash) {
        int base = block(hash);
        long x = mix(hash);
        long[] w = words;
        for (int i = 0; i < PROBES; i++) {
            int bit = (int) x & 511;
            int at = base + (bit >>> 6);
            w[at] |= 1L << bit;
            x >>>= 9;
        }
    }

    /** False when no key with this hash was added; true when one may have been. */
    boolean mightContain(long hash) {
        int base = block(hash);
        long x = mix(hash);
        long[] w = words;
        for (int i = 0; i < PROBES; i++) {
            int bit = (int) x & 511;
            if ((w[base + (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
            x >>>= 9;
        }
        return true;
    }

    /** Bytes of the filter's words. */
    long bytes() {
        return (long) words.length * Long.BYTES;
    }

    /** The first word of the hash's block: its high 32 bits scaled to the block count (Lemire's reduction). */
    private int block(long hash) {
        return (int) (((hash >>> 32) * blocks) >>> 32) * WORDS_PER_BLOCK;
    }

    /** The hash's low bits stirred (a Murmur3 finaliser step): the in-block probes, 9 bits each. */
    private static long mix(long hash) {
        long x = hash * 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 29);
    }
}
