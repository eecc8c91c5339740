package io.bloomstore.bloom;

import java.io.IOException;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A cuckoo filter (Fan, Andersen, Kaminsky &amp; Mitzenmacher, CoNEXT 2014): f-bit fingerprints
 * (8..16) in a cuckoo hash table of B buckets of {@link #BUCKET_SIZE} slots. A key's
 * fingerprint may live in bucket i1 = hash reduced onto [0, B) or i2 = (H(fingerprint) − i1) mod B
 * (partial-key cuckoo hashing: either bucket and the fingerprint give the other; the subtraction
 * instead of the paper's XOR lets B be any size, not only a power of two), so a query
 * reads two buckets and deletes are exact for inserted keys. False-positive rate ≤ 2b/2^f.
 *
 * <p>Insertion moves at most {@link #MAX_KICKS} fingerprints along an eviction chain. When the
 * chain ends without a free slot the insert returns false and the chain is undone step by step,
 * so the table holds exactly the fingerprints it held before: a full filter never loses a key.
 * {@link #loadFactor()} reports how full the table is; with buckets of 4 the first failure
 * comes at about 95% load. The same key may be inserted at most 2b = 8 times.
 *
 * <p>{@link #removeHash} deletes one copy of the key's fingerprint. Only delete keys that were
 * inserted: deleting a false positive removes another key's fingerprint (a false negative for
 * that key).
 *
 * <p>Header use (docs/format/filter.md): {@code k} = slots per bucket (4), {@code aux} =
 * fingerprint bits f, {@code m} = bucket count, {@code n} = fingerprints
 * stored, {@code aux2} = eviction seed; payload = ⌈m·4·f/64⌉ words, slot s of bucket i at bit
 * (4i + s)·f, fingerprints packed little-endian across word boundaries, 0 = empty slot.
 *
 * <p>Thread safety: as {@link MembershipFilter}; removes count as writes.
 */
public final class CuckooFilter implements MembershipFilter {
    public static final int BUCKET_SIZE = 4;
    public static final int MAX_KICKS = 500;
    public static final int MIN_FINGERPRINT_BITS = 8;
    public static final int MAX_FINGERPRINT_BITS = 16;
    private static final long MIX = 0x5BD1E9955BD1E995L;

    private final BitStore slots;
    private final long buckets;
    private final int fpBits;
    private final long fpMask;
    private final HashStrategy strategy;
    private final long seed;
    private final net.openhft.hashing.LongHashFunction hasher;
    private final long[] chainBucket = new long[MAX_KICKS];
    private final int[] chainSlot = new int[MAX_KICKS];
    private long random;
    private long count;

    private CuckooFilter(BitStore slots, long buckets, int fpBits, HashStrategy strategy, long seed, long random,
                         long count) {
        this.slots = slots;
        this.buckets = buckets;
        this.fpBits = fpBits;
        this.fpMask = (1L << fpBits) - 1;
        this.strategy = strategy;
        this.seed = seed;
        this.random = random;
        this.count = count;
        this.hasher = strategy.function(seed);
    }

    /**
     * A filter for {@code expectedKeys} keys at rate {@code fpr}: f = ⌈log2(2b/fpr)⌉ bits
     * (clamped to 8..16) and enough buckets to hold the keys at 94% load or less.
     */
    public static CuckooFilter create(long expectedKeys, double fpr, Storage storage) {
        BloomMath.checkPositive("expected keys", expectedKeys);
        BloomMath.checkRate(fpr);
        int f = (int) Math.ceil(Math.log(2.0 * BUCKET_SIZE / fpr) / Math.log(2));
        f = Math.max(MIN_FINGERPRINT_BITS, Math.min(MAX_FINGERPRINT_BITS, f));
        return create((long) Math.ceil(expectedKeys / (BUCKET_SIZE * 0.94)), f, storage);
    }

    /** A filter of {@code buckets} buckets and {@code fingerprintBits}-bit fingerprints. */
    public static CuckooFilter create(long buckets, int fingerprintBits, Storage storage) {
        checkShape(buckets, BUCKET_SIZE, fingerprintBits);
        Objects.requireNonNull(storage, "storage");
        return new CuckooFilter(storage.allocate(wordsFor(buckets, fingerprintBits)), buckets, fingerprintBits,
                Filters.DEFAULT_STRATEGY, Filters.DEFAULT_SEED, 0x2545F4914F6CDD1DL, 0);
    }

    static CuckooFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        checkShape(h.m(), h.k(), h.aux());
        return new CuckooFilter(payload.words(0, wordsFor(h.m(), h.aux())), h.m(), h.aux(), h.hashStrategy(),
                h.seed(), h.aux2() == 0 ? 1 : h.aux2(), h.n());
    }

    private static void checkShape(long buckets, int bucketSize, int fpBits) {
        if (buckets < 1 || buckets > (1L << 40)) {
            throw new IllegalArgumentException("bucket count must be 1..2^40, got " + buckets);
        }
        if (bucketSize != BUCKET_SIZE) {
            throw new IllegalArgumentException("bucket size must be " + BUCKET_SIZE + ", got " + bucketSize);
        }
        if (fpBits < MIN_FINGERPRINT_BITS || fpBits > MAX_FINGERPRINT_BITS) {
            throw new IllegalArgumentException("fingerprint bits must be 8..16, got " + fpBits);
        }
    }

    private static long wordsFor(long buckets, int fpBits) {
        return BitStore.wordsFor(buckets * BUCKET_SIZE * fpBits);
    }

    @Override
    public FilterKind kind() {
        return FilterKind.CUCKOO;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    private long fingerprint(long hash) {
        // Low bits: the bucket comes from the high bits (reduce), so the two stay independent.
        long fp = hash & fpMask;
        return fp == 0 ? 1 : fp;
    }

    private long index(long hash) {
        return Probes.reduce(hash, buckets);
    }

    private long alternate(long bucket, long fp) {
        return Math.floorMod(((fp * MIX) >>> 17) - bucket, buckets);
    }

    @Override
    public boolean addHash(long hash) {
        long fp = fingerprint(hash);
        long i1 = index(hash);
        if (putInEmpty(i1, fp) || putInEmpty(alternate(i1, fp), fp)) {
            count++;
            return true;
        }
        long bucket = (nextRandom() & 1) == 0 ? i1 : alternate(i1, fp);
        for (int kick = 0; kick < MAX_KICKS; kick++) {
            int s = (int) (nextRandom() >>> 62);
            long victim = slot(bucket, s);
            setSlot(bucket, s, fp);
            chainBucket[kick] = bucket;
            chainSlot[kick] = s;
            fp = victim;
            bucket = alternate(bucket, fp);
            if (putInEmpty(bucket, fp)) {
                count++;
                return true;
            }
        }
        // Undo the chain in reverse: each slot gets back the fingerprint it held before the kick.
        for (int kick = MAX_KICKS - 1; kick >= 0; kick--) {
            long displaced = slot(chainBucket[kick], chainSlot[kick]);
            setSlot(chainBucket[kick], chainSlot[kick], fp);
            fp = displaced;
        }
        return false;
    }

    @Override
    public boolean mightContainHash(long hash) {
        long fp = fingerprint(hash);
        long i1 = index(hash);
        return find(i1, fp) >= 0 || find(alternate(i1, fp), fp) >= 0;
    }

    /** Deletes one copy of the key's fingerprint; false when none was found (the key is absent). */
    public boolean remove(byte[] key) {
        return removeHash(hash(key));
    }

    /** As {@link #remove(byte[])}, by hash. */
    public boolean removeHash(long hash) {
        long fp = fingerprint(hash);
        long i1 = index(hash);
        for (long b : new long[] {i1, alternate(i1, fp)}) {
            int s = find(b, fp);
            if (s >= 0) {
                setSlot(b, s, 0);
                count--;
                return true;
            }
        }
        return false;
    }

    private boolean putInEmpty(long bucket, long fp) {
        int s = find(bucket, 0);
        if (s < 0) {
            return false;
        }
        setSlot(bucket, s, fp);
        return true;
    }

    private int find(long bucket, long fp) {
        for (int s = 0; s < BUCKET_SIZE; s++) {
            if (slot(bucket, s) == fp) {
                return s;
            }
        }
        return -1;
    }

    private long slot(long bucket, int s) {
        long bit = (bucket * BUCKET_SIZE + s) * fpBits;
        long w = bit >>> 6;
        int shift = (int) (bit & 63);
        long v = slots.getWord(w) >>> shift;
        if (shift + fpBits > 64) {
            v |= slots.getWord(w + 1) << (64 - shift);
        }
        return v & fpMask;
    }

    private void setSlot(long bucket, int s, long fp) {
        long bit = (bucket * BUCKET_SIZE + s) * fpBits;
        long w = bit >>> 6;
        int shift = (int) (bit & 63);
        slots.setWord(w, (slots.getWord(w) & ~(fpMask << shift)) | (fp << shift));
        if (shift + fpBits > 64) {
            int low = 64 - shift;
            long hiMask = fpMask >>> low;
            slots.setWord(w + 1, (slots.getWord(w + 1) & ~hiMask) | (fp >>> low));
        }
    }

    private long nextRandom() {
        // xorshift64*: deterministic, so a build is reproducible from the same keys.
        random ^= random >>> 12;
        random ^= random << 25;
        random ^= random >>> 27;
        return random * 0x2545F4914F6CDD1DL;
    }

    /** Fraction of slots in use. */
    public double loadFactor() {
        return (double) count / (buckets * BUCKET_SIZE);
    }

    /** Slots in the table (buckets × 4). */
    public long capacity() {
        return buckets * BUCKET_SIZE;
    }

    public int fingerprintBits() {
        return fpBits;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        return buckets * BUCKET_SIZE * fpBits;
    }

    /** The bound 1 − (1 − 2^−f)^(2b) at full occupancy, scaled by the load factor. */
    @Override
    public double expectedFpp() {
        return -Math.expm1(2 * BUCKET_SIZE * loadFactor() * Math.log1p(-1.0 / ((1 << fpBits) - 1)));
    }

    @Override
    public boolean isOffHeap() {
        return slots.isOffHeap();
    }

    @Override
    public FilterHeader header() {
        return new FilterHeader(FilterKind.CUCKOO, strategy, BUCKET_SIZE, fpBits, buckets, count, seed,
                slots.byteSize(), random);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        out.writeWords(slots);
    }

    @Override
    public void close() {
        slots.close();
    }

    @Override
    public String toString() {
        return String.format("CuckooFilter[buckets=%d, f=%d, n=%d, load=%.3f]", buckets, fpBits, count, loadFactor());
    }
}
