package io.bloomstore.cli.filter;

import java.util.LinkedHashMap;
import java.util.Map;

import io.bloomstore.bloom.BlockedBloomFilter;
import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.FilterKind;

/**
 * The size and expected false-positive rate of a Bloom filter (standard or blocked) for n
 * keys, from one of a target rate, a bit count or a bits-per-key budget, with the optimal k.
 * The same arithmetic the filters use ({@link BloomMath}), so {@code filter create} with the
 * same n and rate builds exactly this filter.
 *
 * @param kind       {@link FilterKind#BLOOM} or {@link FilterKind#BLOCKED_BLOOM}
 * @param n          keys
 * @param m          bits (for blocked filters a whole number of 512-bit blocks)
 * @param k          probes per key
 * @param fpr        expected false-positive rate at n keys
 */
record FilterPlan(FilterKind kind, long n, long m, int k, double fpr) {

    static FilterPlan forRate(FilterKind kind, long n, double fpr) {
        return forBits(kind, n, BloomMath.bitsFor(n, fpr));
    }

    static FilterPlan forBitsPerKey(FilterKind kind, long n, double bitsPerKey) {
        if (!(bitsPerKey > 0) || Double.isInfinite(bitsPerKey)) {
            throw new IllegalArgumentException("bits per key must be positive, got " + bitsPerKey);
        }
        return forBits(kind, n, (long) Math.ceil(bitsPerKey * n));
    }

    static FilterPlan forBits(FilterKind kind, long n, long m) {
        if (n < 1) {
            throw new IllegalArgumentException("--n must be positive, got " + n);
        }
        if (m < 1) {
            throw new IllegalArgumentException("--m must be positive, got " + m);
        }
        int k = BloomMath.optimalK(m, n);
        switch (kind) {
            case BLOOM:
                return new FilterPlan(kind, n, m, Math.min(k, 64), BloomMath.fpr(m, n, Math.min(k, 64)));
            case BLOCKED_BLOOM: {
                long blockBits = BlockedBloomFilter.BLOCK_BITS;
                long rounded = (m + blockBits - 1) / blockBits * blockBits;
                int kb = Math.min(k, 32);
                return new FilterPlan(kind, n, rounded, kb, BloomMath.blockedFpr(rounded, n, kb, (int) blockBits));
            }
            default:
                throw new IllegalArgumentException("plan sizes bloom and blocked filters, not " + kind.cliName());
        }
    }

    double bitsPerKey() {
        return (double) m / n;
    }

    /** Payload bytes: the bit array in whole 64-bit words. */
    long bytes() {
        return (m + 63) / 64 * 8;
    }

    long fileBytes() {
        return FilterFile.HEADER_BYTES + bytes() + FilterFile.TRAILER_BYTES;
    }

    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("kind", kind.cliName());
        json.put("n", n);
        json.put("m", m);
        json.put("k", k);
        json.put("fpr", fpr);
        json.put("bitsPerKey", bitsPerKey());
        json.put("bytes", bytes());
        json.put("fileBytes", fileBytes());
        return json;
    }
}
