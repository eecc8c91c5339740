package io.bloomstore.bloom.paradox;

import io.bloomstore.bloom.CountingBloomFilter;
import io.bloomstore.bloom.storage.Storage;

/**
 * The selective counting Bloom filter of the Bloom paradox paper: a {@link CountingBloomFilter}
 * that is consulted only where it can pay.
 * <ul>
 *   <li>Insert: before each insertion it checks whether, with one more key, the filter would
 *       fall into the paradox for the key's a-priori probability P(x), i.e.
 *       P(x) &lt; 1/(1 + α·2^(ln 2·m/(n+1))); if so the key is not inserted (it would only add
 *       false positives) and {@link #offerHash} returns false.</li>
 *   <li>Query: "present" only when the posterior from the key's counters,
 *       m^k·Πc_j·P / (m^k·Πc_j·P + (nk)^k·(1 − P)), is at least 1/(α + 1) ({@link BloomParadox}).
 *       Large counters (a key inserted many times) raise the posterior; counters that other keys
 *       lit by chance do not raise it enough.</li>
 * </ul>
 * Here n counts insertions (repeats included), since every insertion adds k to the counter mass
 * the formula's (nk)^k stands for. Unlike a Bloom filter this structure answers "absent" for
 * some inserted keys by design: it trades false negatives for false positives at the cost ratio α.
 *
 * <p>Thread safety: as {@link CountingBloomFilter}.
 */
public final class SelectiveCountingBloomFilter implements AutoCloseable {
    private final CountingBloomFilter counters;
    private final double alpha;
    private final double prior;
    private final int[] scratch;
    private long inserted;
    private long skipped;

    /**
     * A filter of {@code m} four-bit counters and {@code k} probes for cost ratio {@code alpha}
     * (W_FN / W_FP) and default a-priori membership probability {@code prior}.
     */
    public SelectiveCountingBloomFilter(long m, int k, double alpha, double prior, Storage storage) {
        BloomParadox.checkAlpha(alpha);
        BloomParadox.checkPrior(prior);
        this.counters = CountingBloomFilter.create(m, k, storage);
        this.alpha = alpha;
        this.prior = prior;
        this.scratch = new int[k];
    }

    /** Inserts with the default a-priori probability; false when the insert was skipped. */
    public boolean offerHash(long hash) {
        return offerHash(hash, prior);
    }

    /** Inserts a key whose a-priori membership probability is {@code keyPrior}, unless the paradox would hold. */
    public boolean offerHash(long hash, double keyPrior) {
        BloomParadox.checkPrior(keyPrior);
        if (BloomParadox.holds(keyPrior, alpha, (double) counters.m() / (inserted + 1))) {
            skipped++;
            return false;
        }
        counters.addHash(hash);
        inserted++;
        return true;
    }

    /** Pr(x ∈ S | the key's counters) under the default a-priori probability. */
    public double posteriorHash(long hash) {
        counters.counters(hash, scratch);
        return BloomParadox.posterior(scratch, counters.k(), counters.m(), inserted, prior);
    }

    /** "Present" exactly when the posterior is at least 1/(α + 1). */
    public boolean mightContainHash(long hash) {
        return posteriorHash(hash) >= BloomParadox.presentThreshold(alpha);
    }

    public double alpha() {
        return alpha;
    }

    public double prior() {
        return prior;
    }

    /** Insertions made (n in the formulas). */
    public long inserted() {
        return inserted;
    }

    /** Insertions refused because the paradox would hold. */
    public long skipped() {
        return skipped;
    }

    /** Number of counters m. */
    public long m() {
        return counters.m();
    }

    public int k() {
        return counters.k();
    }

    /** Bits of counter storage: 4m. */
    public long bitSize() {
        return counters.bitSize();
    }

    @Override
    public void close() {
        counters.close();
    }
}
