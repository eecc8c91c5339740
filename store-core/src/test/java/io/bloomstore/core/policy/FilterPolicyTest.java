package io.bloomstore.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.FilterPolicy;
import io.bloomstore.core.LevelShape;
import org.junit.jupiter.api.Test;

/** The policies' arithmetic and decisions on given tree shapes. */
class FilterPolicyTest {
    /** A tree with size ratio 10: level 0 small, each deeper level ten times the one above. */
    private static final long[] TREE = {1_000, 10_000, 100_000, 1_000_000, 0, 0, 0};

    @Test
    void monkeySpendsTheBudgetAndMakesRatesProportionalToEntries() {
        double[] bits = MonkeyFilterPolicy.allocate(TREE, 10);
        double memory = 0;
        double total = 0;
        for (int i = 0; i < TREE.length; i++) {
            memory += TREE[i] * bits[i];
            total += TREE[i];
        }
        assertEquals(10 * total, memory, 1e-6 * memory, "the whole budget, no more");
        double ln2sq = Math.log(2) * Math.log(2);
        for (int i = 1; i < 4; i++) {
            double ratio = Math.exp(-ln2sq * bits[i]) / Math.exp(-ln2sq * bits[i - 1]);
            assertEquals(10.0, ratio, 1e-9, "p_i ∝ n_i");
        }
        assertEquals(0, bits[4]);
        double[] uniform = {10, 10, 10, 10, 0, 0, 0};
        double monkeySum = MonkeyFilterPolicy.sumOfRates(TREE, bits);
        double uniformSum = MonkeyFilterPolicy.sumOfRates(TREE, uniform);
        System.out.println("level  entries    monkey bits/key  monkey FPR   uniform FPR");
        for (int i = 0; i < 4; i++) {
            System.out.printf("L%d  %10d  %14.2f  %11.5f  %11.5f%n", i, TREE[i], bits[i],
                    Math.exp(-ln2sq * bits[i]), Math.exp(-ln2sq * 10));
        }
        System.out.printf("expected reads per missing lookup: monkey %.5f, uniform %.5f%n", monkeySum, uniformSum);
        assertTrue(monkeySum < uniformSum, "monkey " + monkeySum + " vs uniform " + uniformSum);
        assertTrue(bits[0] > bits[1] && bits[1] > bits[2] && bits[2] > bits[3], "fewer bits on larger levels");
    }

    @Test
    void monkeyDropsTheLargestLevelsFilterWhenTheBudgetIsTiny() {
        double[] bits = MonkeyFilterPolicy.allocate(TREE, 0.5);
        assertEquals(0, bits[3], "the bottom level's rate would reach 1: no filter there");
        double memory = 0;
        double total = 0;
        for (int i = 0; i < TREE.length; i++) {
            memory += TREE[i] * bits[i];
            total += TREE[i];
        }
        assertEquals(0.5 * total, memory, 1e-6 * memory);
        FilterChoice c = FilterPolicy.monkey(FilterKind.BLOOM, 0.5).choose(3, LevelShape.ofEntries(TREE));
        assertFalse(c.builds());
    }

    @Test
    void optimizeForHitsSkipsOnlyTheBottomLevel() {
        FilterPolicy p = FilterPolicy.uniform(FilterKind.BLOOM, 10).optimizeForHits();
        LevelShape shape = LevelShape.ofEntries(TREE);
        assertEquals(3, shape.bottomLevel());
        assertTrue(p.choose(0, shape).builds());
        assertTrue(p.choose(2, shape).builds());
        FilterChoice bottom = p.choose(3, shape);
        assertTrue(bottom.skipped());
        assertEquals(10, bottom.bitsPerKey());
        assertTrue(p.choose(0, LevelShape.ofEntries(5, 0, 0)).builds(), "level 0 is never the bottom");
    }

    @Test
    void adaptiveSkipsWhereMostLookupsHit() {
        FilterPolicy p = FilterPolicy.uniform(FilterKind.BLOOM, 10).adaptive(0.1, 100);
        double[] ratios = {0.05, 0.5, 0.95, Double.NaN};
        long[] probes = {1000, 1000, 1000, 10};
        LevelShape shape = new LevelShape(new long[] {1, 1, 1, 1}, ratios, probes);
        double threshold = AdaptiveFilterPolicy.hitRatioThreshold(0.1, FilterChoice.filter(FilterKind.BLOOM, 10, "x")
                .theoreticalFpr());
        double fpr = Math.exp(-Math.log(2) * Math.log(2) * 10);
        assertEquals(1 - 0.1 / (1 - fpr), threshold, 1e-3, "P above 1 − s/(1 − f) saves fewer than s reads");
        assertTrue(p.choose(0, shape).builds());
        assertTrue(p.choose(1, shape).builds());
        FilterChoice hits = p.choose(2, shape);
        assertTrue(hits.skipped(), hits.toString());
        FilterChoice unmeasured = p.choose(3, shape);
        assertTrue(unmeasured.builds() && unmeasured.reason().contains("measuring"), unmeasured.toString());
    }
}
