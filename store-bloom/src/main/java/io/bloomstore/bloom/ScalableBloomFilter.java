package io.bloomstore.bloom;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * A scalable Bloom filter (Almeida, Baquero, Preguiça &amp; Hutchison, IPL 2007): a chain of
 * standard {@link BloomFilter} stages for when the number of keys is not known in advance.
 * Stage i holds n0·s^i keys (s = growth factor, default 2) at rate P·(1 − r)·r^i (r = tightening
 * ratio, default 0.85); a new stage starts when the newest is full. The compound rate
 * 1 − Π(1 − p_i) ≤ Σ p_i &lt; P(1 − r)/(1 − r) = P, however many keys arrive. A key is added
 * to the newest stage only; a query asks every stage, so lookups slow down (one more stage
 * per doubling) as the chain grows.
 *
 * <p>Stage i probes with the key hash remixed by i, so stages make independent errors.
 *
 * <p>Header use (docs/format/filter.md): {@code k} = stage count, {@code aux} = growth factor,
 * {@code m} = total bits of all stages, {@code n} = keys added. Payload:
 * <pre>
 *   Payload = InitialCapacity i64, TargetFpr f64, Tightening f64, Stage^StageCount
 *   Stage   = StageBits i64, StageK i64, StageCapacity i64, StageKeys i64, Word^⌈StageBits/64⌉
 * </pre>
 * (f64 = IEEE 754 bits as a little-endian i64); each stage's words are mapped in place.
 *
 * <p>Thread safety: as {@link MembershipFilter}.
 */
public final class ScalableBloomFilter implements MembershipFilter {
    public static final int DEFAULT_GROWTH = 2;
    public static final double DEFAULT_TIGHTENING = 0.85;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final int PREFIX_BYTES = 24;
    private static final int STAGE_HEADER_BYTES = 32;

    private final long initialCapacity;
    private final double targetFpr;
    private final int growth;
    private final double tightening;
    private final Storage storage;
    private final List<BloomFilter> stages = new ArrayList<>();
    private final List<Long> capacities = new ArrayList<>();
    private final net.openhft.hashing.LongHashFunction hasher;
    private long count;

    private ScalableBloomFilter(long initialCapacity, double targetFpr, int growth, double tightening, Storage storage) {
        this.initialCapacity = initialCapacity;
        this.targetFpr = targetFpr;
        this.growth = growth;
        this.tightening = tightening;
        this.storage = storage;
        this.hasher = Filters.DEFAULT_STRATEGY.function(Filters.DEFAULT_SEED);
    }

    /** A chain starting at {@code initialCapacity} keys with compound rate below {@code fpr}, defaults s = 2, r = 0.85. */
    public static ScalableBloomFilter create(long initialCapacity, double fpr, Storage storage) {
        return create(initialCapacity, fpr, DEFAULT_GROWTH, DEFAULT_TIGHTENING, storage);
    }

    public static ScalableBloomFilter create(long initialCapacity, double fpr, int growth, double tightening,
                                             Storage storage) {
        checkParameters(initialCapacity, fpr, growth, tightening);
        Objects.requireNonNull(storage, "storage");
        ScalableBloomFilter f = new ScalableBloomFilter(initialCapacity, fpr, growth, tightening, storage);
        f.addStage();
        return f;
    }

    private static void checkParameters(long initialCapacity, double fpr, int growth, double tightening) {
        BloomMath.checkPositive("initial capacity", initialCapacity);
        BloomMath.checkRate(fpr);
        if (growth < 1 || growth > 16) {
            throw new IllegalArgumentException("growth factor must be 1..16, got " + growth);
        }
        if (!(tightening > 0 && tightening < 1)) {
            throw new IllegalArgumentException("tightening ratio must be in (0, 1), got " + tightening);
        }
    }

    static ScalableBloomFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        long initial = payload.readLong(0);
        double fpr = Double.longBitsToDouble(payload.readLong(8));
        double tightening = Double.longBitsToDouble(payload.readLong(16));
        checkParameters(initial, fpr, h.aux(), tightening);
        if (h.k() < 1) {
            throw new IllegalArgumentException("scalable filter with " + h.k() + " stages");
        }
        ScalableBloomFilter f = new ScalableBloomFilter(initial, fpr, h.aux(), tightening, Storage.HEAP);
        long offset = PREFIX_BYTES;
        for (int i = 0; i < h.k(); i++) {
            long bits = payload.readLong(offset);
            int k = (int) payload.readLong(offset + 8);
            long capacity = payload.readLong(offset + 16);
            long keys = payload.readLong(offset + 24);
            if (bits < 1 || k < 1 || k > 64 || capacity < 1 || keys < 0) {
                throw new IllegalArgumentException("bad stage " + i + ": bits=" + bits + " k=" + k);
            }
            long words = BitStore.wordsFor(bits);
            FilterHeader sh = new FilterHeader(FilterKind.BLOOM, h.hashStrategy(), k, 0, bits, keys, h.seed(),
                    words * Long.BYTES, 0);
            f.stages.add(BloomFilter.open(sh, new OffsetPayload(payload, offset + STAGE_HEADER_BYTES, words * Long.BYTES)));
            f.capacities.add(capacity);
            offset += STAGE_HEADER_BYTES + words * Long.BYTES;
        }
        f.count = h.n();
        return f;
    }

    private void addStage() {
        int i = stages.size();
        long capacity = Math.multiplyExact(initialCapacity, pow(growth, i));
        double p = targetFpr * (1 - tightening) * Math.pow(tightening, i);
        long m = BloomMath.bitsFor(capacity, p);
        stages.add(BloomFilter.create(m, BloomMath.optimalK(m, capacity), Filters.DEFAULT_STRATEGY,
                Filters.DEFAULT_SEED, storage));
        capacities.add(capacity);
    }

    private static long pow(long base, int exp) {
        long r = 1;
        for (int i = 0; i < exp; i++) {
            r = Math.multiplyExact(r, base);
        }
        return r;
    }

    private static long stageHash(long hash, int stage) {
        if (stage == 0) {
            return hash;
        }
        long h = hash + stage * GOLDEN;
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 31);
    }

    @Override
    public FilterKind kind() {
        return FilterKind.SCALABLE_BLOOM;
    }

    @Override
    public long hash(byte[] key) {
        return hasher.hashBytes(key);
    }

    @Override
    public boolean addHash(long hash) {
        int last = stages.size() - 1;
        if (stages.get(last).count() >= capacities.get(last)) {
            addStage();
            last++;
        }
        stages.get(last).addHash(stageHash(hash, last));
        count++;
        return true;
    }

    @Override
    public boolean mightContainHash(long hash) {
        // Newest first: the largest stage holds most keys.
        for (int i = stages.size() - 1; i >= 0; i--) {
            if (stages.get(i).mightContainHash(stageHash(hash, i))) {
                return true;
            }
        }
        return false;
    }

    public int stageCount() {
        return stages.size();
    }

    public double targetFpr() {
        return targetFpr;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long bitSize() {
        long bits = 0;
        for (BloomFilter s : stages) {
            bits += s.m();
        }
        return bits;
    }

    /** 1 − Π(1 − p_i) over the stages at their current fill. */
    @Override
    public double expectedFpp() {
        double none = 1;
        for (BloomFilter s : stages) {
            none *= 1 - s.expectedFpp();
        }
        return 1 - none;
    }

    @Override
    public boolean isOffHeap() {
        return stages.get(0).isOffHeap();
    }

    @Override
    public FilterHeader header() {
        long payload = PREFIX_BYTES;
        for (BloomFilter s : stages) {
            payload += STAGE_HEADER_BYTES + BitStore.wordsFor(s.m()) * Long.BYTES;
        }
        return new FilterHeader(FilterKind.SCALABLE_BLOOM, Filters.DEFAULT_STRATEGY, stages.size(), growth, bitSize(),
                count, Filters.DEFAULT_SEED, payload, 0);
    }

    @Override
    public void writePayload(PayloadWriter out) throws IOException {
        out.writeLong(initialCapacity);
        out.writeLong(Double.doubleToLongBits(targetFpr));
        out.writeLong(Double.doubleToLongBits(tightening));
        for (int i = 0; i < stages.size(); i++) {
            BloomFilter s = stages.get(i);
            out.writeLong(s.m());
            out.writeLong(s.k());
            out.writeLong(capacities.get(i));
            out.writeLong(s.count());
            s.writePayload(out);
        }
    }

    @Override
    public void close() {
        for (BloomFilter s : stages) {
            s.close();
        }
    }

    @Override
    public String toString() {
        return String.format("ScalableBloomFilter[stages=%d, n=%d, bits=%d, fpp=%.3g]", stages.size(), count,
                bitSize(), expectedFpp());
    }

    /** A window of a payload starting at {@code base}, so a stage reads its words at offset 0. */
    private static final class OffsetPayload implements FilterPayload {
        private final FilterPayload payload;
        private final long base;
        private final long length;

        /** The {@code length} bytes of {@code payload} starting at {@code base}: one stage's bit array. */
        OffsetPayload(FilterPayload payload, long base, long length) {
            if (base + length > payload.length()) {
                throw new IllegalArgumentException("stage at payload offset " + base + " of " + length
                        + " bytes runs past the payload of " + payload.length() + " bytes");
            }
            this.payload = payload;
            this.base = base;
            this.length = length;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public BitStore words(long offset, long wordCount) throws IOException {
            if (offset + wordCount * Long.BYTES > length) {
                throw new IllegalArgumentException("stage region runs past the stage");
            }
            return payload.words(base + offset, wordCount);
        }

        @Override
        public long readLong(long offset) throws IOException {
            return payload.readLong(base + offset);
        }
    }
}
