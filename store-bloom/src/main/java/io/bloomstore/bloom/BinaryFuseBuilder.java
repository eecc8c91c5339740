package io.bloomstore.bloom;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * Constructs a {@link BinaryFuseFilter} from key hashes (equal hashes never peel: the caller
 * removes duplicates when a first seed fails): sizes the segments, then
 * peels the 3-hypergraph (repeatedly removing a key that is alone in one of its slots) and
 * assigns fingerprints in reverse peeling order. A peeling that gets stuck retries with the next
 * seed from a fixed SplitMix64 sequence, so the same keys always give the same filter.
 *
 * <p>Sizing follows the reference implementation (Graf &amp; Lemire, arity 3): segment length
 * 2^⌊ln n / ln 3.33 + 2.25⌋ (at most 2^18), array ≈ n · max(1.125, 0.875 + 0.25·ln 10^6 / ln n).
 *
 * <p>Thread safety: single use, one thread.
 */
final class BinaryFuseBuilder {
    static final int MAX_ATTEMPTS = 100;
    private static final int MAX_SEGMENT_LENGTH = 1 << 18;

    private final long[] keys;
    private final int size;
    private final int fpBits;
    private final int segmentLength;
    private final long arrayLength;
    private final long segmentCountLength;

    BinaryFuseBuilder(long[] distinctKeys, int size, int fpBits) {
        this.keys = distinctKeys;
        this.size = size;
        this.fpBits = fpBits;
        int seg = size == 0 ? 4 : 1 << (int) Math.floor(Math.log(size) / Math.log(3.33) + 2.25);
        this.segmentLength = Math.max(4, Math.min(MAX_SEGMENT_LENGTH, seg));
        double sizeFactor = size <= 1 ? 0 : Math.max(1.125, 0.875 + 0.25 * Math.log(1_000_000.0) / Math.log(size));
        long capacity = Math.round(size * sizeFactor);
        long segmentCount = Math.max(1, (capacity + segmentLength - 1) / segmentLength - 2);
        this.arrayLength = (segmentCount + 2) * segmentLength;
        this.segmentCountLength = segmentCount * segmentLength;
        if (arrayLength > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("too many keys for one binary fuse filter: " + size);
        }
    }

    /** The filter, or null when none of the first {@code attempts} seeds peels every key. */
    BinaryFuseFilter build(Storage storage, int attempts) {
        int cells = (int) arrayLength;
        int[] t2count = new int[cells];
        long[] t2hash = new long[cells];
        int[] alone = new int[cells];
        long[] order = new long[size];
        byte[] orderSlot = new byte[size];
        long rng = 0x726B2B9D438B9D4DL;
        for (int attempt = 0; attempt < attempts; attempt++) {
            rng += 0x9E3779B97F4A7C15L;
            long seed = Probes.mix(rng);
            if (attempt > 0) {
                java.util.Arrays.fill(t2count, 0);
                java.util.Arrays.fill(t2hash, 0);
            }
            for (int i = 0; i < size; i++) {
                long x = BinaryFuseFilter.mix(keys[i], seed);
                for (int p = 0; p < 3; p++) {
                    int h = (int) BinaryFuseFilter.position(p, x, segmentCountLength, segmentLength);
                    // Count in the high bits, XOR of the key's slot numbers (0, 1, 2) in the low two.
                    t2count[h] = (t2count[h] + 4) ^ p;
                    t2hash[h] ^= x;
                }
            }
            int queued = 0;
            for (int i = 0; i < cells; i++) {
                if ((t2count[i] >> 2) == 1) {
                    alone[queued++] = i;
                }
            }
            int stack = 0;
            while (queued > 0) {
                int index = alone[--queued];
                if ((t2count[index] >> 2) != 1) {
                    continue;
                }
                long x = t2hash[index];
                int found = t2count[index] & 3;
                order[stack] = x;
                orderSlot[stack] = (byte) found;
                stack++;
                for (int d = 1; d <= 2; d++) {
                    int p = (found + d) % 3;
                    int other = (int) BinaryFuseFilter.position(p, x, segmentCountLength, segmentLength);
                    if ((t2count[other] >> 2) == 2) {
                        alone[queued++] = other;
                    }
                    t2count[other] = (t2count[other] - 4) ^ p;
                    t2hash[other] ^= x;
                }
            }
            if (stack == size) {
                return assign(storage, order, orderSlot, seed);
            }
        }
        return null;
    }

    private BinaryFuseFilter assign(Storage storage, long[] order, byte[] orderSlot, long seed) {
        BitStore store = storage.allocate(BitStore.wordsFor(arrayLength * fpBits));
        long mask = (1L << fpBits) - 1;
        long[] h = new long[3];
        for (int i = size - 1; i >= 0; i--) {
            long x = order[i];
            for (int p = 0; p < 3; p++) {
                h[p] = BinaryFuseFilter.position(p, x, segmentCountLength, segmentLength);
            }
            int found = orderSlot[i];
            long value = BinaryFuseFilter.fingerprintOf(x, mask) ^ get(store, h[(found + 1) % 3], mask)
                    ^ get(store, h[(found + 2) % 3], mask);
            set(store, h[found], value, mask);
        }
        return new BinaryFuseFilter(store, fpBits, arrayLength, segmentLength, seed, Filters.DEFAULT_STRATEGY,
                Filters.DEFAULT_SEED, size);
    }

    private long get(BitStore store, long i, long mask) {
        long bit = i * fpBits;
        return (store.getWord(bit >>> 6) >>> (bit & 63)) & mask;
    }

    private void set(BitStore store, long i, long value, long mask) {
        long bit = i * fpBits;
        long w = bit >>> 6;
        int shift = (int) (bit & 63);
        store.setWord(w, (store.getWord(w) & ~(mask << shift)) | (value << shift));
    }
}
