package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A counting Bloom filter (Fan et al.): m packed 4-bit counters instead of m bits, so keys
 * can be removed. A key's k probes (double hashing, as {@link BloomFilter}) increment on
 * {@link #addHash}, decrement on {@link #removeHash}; a query asks whether all k counters are
 * non-zero, so the false-positive rate is the standard filter's (1 − e^(−kn/m))^k at four
 * times the memory.
 *
 * <p>Overflow: a counter saturates at {@link #MAX_COUNT} (15) and a saturated counter is never
 * decremented again (it no longer knows how many keys it counts). Guarantees:
 * <ul>
 *   <li>No false negatives while every remove is of a key that was added (and not yet removed
 *       as often as added): an unsaturated counter is exactly the number of present probes that
 *       hit it, so it stays ≥ 1 for every present key; a saturated counter stays at 15.</li>
 *   <li>{@link #removeHash} refuses, with {@link IllegalArgumentException} and no change, a key
 *       the filter reports absent: such a key was certainly never added.</li>
 *   <li>Removing a key that was never added but is a false positive cannot be detected. It is
 *       undefined which keys it affects: it decrements counters that belong to other keys and
 *       may create false negatives for them, except for keys all of whose counters are
 *       saturated (those stay present forever). It never corrupts the structure: a decremented
 *       counter was ≥ 1, so no counter wraps.</li>
 * </ul>
 *
 * <p>Header use (docs/format/filter.md): {@code k} probes, {@code aux} = 4 (bits per counter),
 * {@code m} = number of counters, {@code n} = keys present, payload = ⌈m/16⌉ words, counter i
 * in bits 4·(i mod 16) .. 4·(i mod 16)+3 of word ⌊i/16⌋.
 *
 * <p>Thread safety: as {@link MembershipFilter}; removes count as writes.
 */
public final class CountingBloomFilter implements MembershipFilter {
    /** Bits per counter. */
    public static final int COUNTER_BITS = 4;
    /** The saturation value of a counter. */
    public static final int MAX_COUNT = (1 << COUNTER_BITS) - 1;
    private static final int PER_WORD = 64 / COUNTER_BITS;

    private final BitStore counters;
    private final long m;
    private final int k;
    private final HashStrategy strategy;
    private final long seed;
    private final net.openhft.hashing.LongHashFunction hasher;
    private long count;

    private CountingBloomFilter(BitStore counters, long m, int k, HashStrategy strategy, long seed, long count) {
        this.counters = counters;
        this.m = m;
        this.k = k;
        this.strategy = strategy;
        this.seed = seed;
        this.count = count;
        this.hasher = strategy.function(seed);
    }

    /** A filter for {@code expectedKeys} keys at rate {@code fpr}: as many counters as a Bloom filter has bits. */
    public static CountingBloomFilter create(long expectedKeys, double fpr, Storage storage) {
        long m = BloomMath.bitsFor(expectedKeys, fpr);
        return create(m, BloomMath.optimalK(m, expectedKeys), storage);
    }

    /** A filter of {@code m} counters and {@code k} probes, hashed with {@link Filters#hash}. */
    public static CountingBloomFilter create(long m, int k, Storage storage) {
        checkShape(m, k);
        Objects.requireNonNull(storage, "storage");
        return new CountingBloomFilter(storage.allocate(wordsFor(m)), m, k, Filters.DEFAULT_STRATEGY,
                Filters.DEFAULT_SEED, 0);
    }

    static CountingBloomFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        checkShape(h.m(), h.k());
        if (h.aux() != COUNTER_BITS) {
            throw new IllegalArgumentException("counting filter with " + h.aux() + "-bit counters");
        }
        return new CountingBloomFilter(payload.words(0, wordsFor(h.m())), h.m(), h.k(), h.hashStrategy(),
                h.seed(), h.n());
    }

    private static void checkShape(long m, int k) {
        if (m < 1) {
            throw new IllegalArgumentException("a counting filter needs at least one counter, got m=" + m);
        }
        if (k < 1 || k > 64) {
            throw new IllegalArgumentException("k must be between 1 and 64, got " + k);
        }
    }

    private static long wordsFor(long m) {
        return (m + PER_WORD - 1) / PER_WORD;
    }

    @Override
    public FilterKind kind() {
        return FilterKind.COUNTING_BLOOM;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    @Override
    public boolean addHash(long hash) {
        long h2 = Probes.second(hash);
        long h = hash;
        for (int i = 0; i < k; i++) {
            long idx = Probes.reduce(h, m);
            int c = counter(idx);
            if (c < MAX_COUNT) {
                setCounter(idx, c + 1);
            }
            h += h2;
        }
        count++;
        return true;
    }

    /** Removes a key added before; see the class comment for what is guaranteed. */
    public void remove(byte[] key) {
        removeHash(hash(key));
    }

    /**
     * Removes a key by hash. Throws {@link IllegalArgumentException} (and changes nothing) when
     * the key is reported absent, since it was then never added.
     */
    public void removeHash(long hash) {
        if (!mightContainHash(hash)) {
            throw new IllegalArgumentException("cannot remove a key that was never added");
        }
        long h2 = Probes.second(hash);
        long h = hash;
        for (int i = 0; i < k; i++) {
            long idx = Probes.reduce(h, m);
            int c = counter(idx);
            // A saturated counter may count more keys than 15: decrementing could reach 0 while
            // keys remain, so it stays saturated. c is at least 1 here (the key was reported present).
            if (c < MAX_COUNT && c > 0) {
                setCounter(idx, c - 1);
            }
            h += h2;
        }
        count = Math.max(0, count - 1);
    }

    @Override
    public boolean mightContainHash(long hash) {
        long h2 = Probes.second(hash);
        long h = hash;
        for (int i = 0; i < k; i++) {
            if (counter(Probes.reduce(h, m)) == 0) {
                return false;
            }
            h += h2;
        }
        return true;
    }

    /** The key's k counter values, in probe order, into {@code out} (length ≥ k). */
    public void counters(long hash, int[] out) {
        long h2 = Probes.second(hash);
        long h = hash;
        for (int i = 0; i < k; i++) {
            out[i] = counter(Probes.reduce(h, m));
            h += h2;
        }
    }

    /** The key's k counter indexes, in probe order, into {@code out} (length ≥ k). */
    public void probes(long hash, long[] out) {
        long h2 = Probes.second(hash);
        long h = hash;
        for (int i = 0; i < k; i++) {
            out[i] = Probes.reduce(h, m);
            h += h2;
        }
    }

    /** Counter {@code index} (0..15). */
    public int counter(long index) {
        long word = counters.getWord(index / PER_WORD);
        return (int) (word >>> ((index % PER_WORD) * COUNTER_BITS)) & MAX_COUNT;
    }

    private void setCounter(long index, int value) {
        long w = index / PER_WORD;
        int shift = (int) (index % PER_WORD) * COUNTER_BITS;
        long word = counters.getWord(w);
        counters.setWord(w, (word & ~((long) MAX_COUNT << shift)) | ((long) value << shift));
    }

    public int k() {
        return k;
    }

    /** Number of counters. */
    public long m() {
        return m;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        return m * COUNTER_BITS;
    }

    @Override
    public double expectedFpp() {
        return BloomMath.fpr(m, count, k);
    }

    @Override
    public boolean isOffHeap() {
        return counters.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.COUNTING_BLOOM, strategy, k, COUNTER_BITS, m, count, seed,
                counters.byteSize(), 0);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        out.writeWords(counters);
    }

    @Override
    public void close() {
        counters.close();
    }

    @Override
    public String toString() {
        return String.format("CountingBloomFilter[m=%d counters, k=%d, n=%d, fpp=%.3g]", m, k, count, expectedFpp());
    }
}
