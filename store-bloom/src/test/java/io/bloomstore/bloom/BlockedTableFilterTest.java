package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.Storage;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A table's blocked filter at any bits per key: the probe count is the standard optimum capped at
 * {@link BlockedBloomFilter#MAX_K}, so generous budgets (a store's default kind with, say, 64
 * bits per key) build a filter instead of failing the flush.
 */
class BlockedTableFilterTest {
    private static final long SEED = 20261124L;

    @Test
    void probeCountIsTheOptimumCappedAtTheBlockLimit() {
        assertEquals(BloomMath.optimalK(10), BlockedBloomFilter.optimalK(10));
        assertEquals(BlockedBloomFilter.MAX_K, BlockedBloomFilter.optimalK(64));
    }

    @Test
    void generousBudgetBuildsAFilterWithoutFalseNegatives() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        int n = 5_000;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = rnd.nextLong();
        }
        MembershipFilter f = Filters.build(FilterKind.BLOCKED_BLOOM, 64, keys, n, Storage.HEAP);
        assertEquals(BlockedBloomFilter.MAX_K, ((BlockedBloomFilter) f).k());
        for (long key : keys) {
            assertTrue(f.mightContainHash(key), "false negative for " + key + " (seed " + SEED + ")");
        }
    }
}
