package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The key distributions. Statistical checks with seed {@value #SEED} over {@value #DRAWS} draws;
 * each tolerance is stated beside its assertion.
 */
class KeyChooserTest {
    private static final long SEED = 11;
    private static final int KEYS = 10_000;
    private static final int DRAWS = 1_000_000;

    private static int[] histogram(BenchConfig.Distribution d) {
        System.out.println("KeyChooserTest seed " + SEED);
        KeyChooser chooser = KeyChooser.of(d, KEYS);
        SplittableRandom random = new SplittableRandom(SEED);
        int[] counts = new int[KEYS];
        for (int i = 0; i < DRAWS; i++) {
            int k = chooser.next(random);
            assertTrue(k >= 0 && k < KEYS, "index " + k);
            counts[k]++;
        }
        return counts;
    }

    @Test
    void zipfianHotKeyHasTheTheoreticalShareAndHotKeysAreScattered() {
        int[] counts = histogram(BenchConfig.Distribution.ZIPFIAN);
        double zeta = 0;
        for (int i = 1; i <= KEYS; i++) {
            zeta += 1 / Math.pow(i, KeyChooser.ZIPFIAN_THETA);
        }
        int hottest = 0;
        for (int i = 1; i < KEYS; i++) {
            if (counts[i] > counts[hottest]) {
                hottest = i;
            }
        }
        // Rank 0 is drawn with probability 1/zeta (about 0.103 here); sigma of its count is about 300 of 103,000.
        assertEquals(DRAWS / zeta, counts[hottest], 0.03 * DRAWS / zeta, "share of the most popular key");
        int[] sorted = counts.clone();
        Arrays.sort(sorted);
        long top1Percent = 0;
        for (int i = KEYS - KEYS / 100; i < KEYS; i++) {
            top1Percent += sorted[i];
        }
        assertTrue(top1Percent > 0.4 * DRAWS, "the hottest 1% of keys take over 40% of the draws: " + top1Percent);
        int hotInLowerHalf = 0;
        int[] order = new int[20];
        for (int h = 0; h < order.length; h++) {
            int best = -1;
            for (int i = 0; i < KEYS; i++) {
                if (counts[i] >= 0 && (best < 0 || counts[i] > counts[best])) {
                    best = i;
                }
            }
            order[h] = best;
            counts[best] = -1;
            if (best < KEYS / 2) {
                hotInLowerHalf++;
            }
        }
        // Scattered: the 20 hottest keys are not the 20 smallest; a fair split has 10 in each half (5..15 allowed).
        assertTrue(hotInLowerHalf >= 5 && hotInLowerHalf <= 15, "hot keys in the lower half: " + hotInLowerHalf
                + " " + Arrays.toString(order));
    }

    @Test
    void uniformDrawsEveryKeyAboutEquallyOften() {
        int[] counts = histogram(BenchConfig.Distribution.UNIFORM);
        int min = Arrays.stream(counts).min().orElseThrow();
        int max = Arrays.stream(counts).max().orElseThrow();
        // Expected 100 per key, sigma 10: every key within 55..145 (4.5 sigma over 10,000 keys).
        assertTrue(min >= 55 && max <= 145, "min " + min + " max " + max);
    }

    @Test
    void zipfianRanksFollowTheFormula() {
        KeyChooser chooser = KeyChooser.of(BenchConfig.Distribution.ZIPFIAN, KEYS);
        assertEquals(0, chooser.rank(0.0));
        assertEquals(KEYS - 1, chooser.rank(Math.nextDown(1.0)));
        long previous = 0;
        for (double u = 0; u < 1; u += 0.001) {
            long r = chooser.rank(u);
            assertTrue(r >= previous, "ranks grow with u");
            previous = r;
        }
    }

    @Test
    void latestFavoursTheNewestInOrder() {
        System.out.println("KeyChooserTest seed " + SEED);
        KeyChooser chooser = KeyChooser.of(BenchConfig.Distribution.LATEST, KEYS);
        SplittableRandom random = new SplittableRandom(SEED);
        int[] counts = new int[KEYS];
        for (int i = 0; i < DRAWS; i++) {
            long back = chooser.recency(random);
            assertTrue(back >= 0 && back < KEYS, "recency " + back);
            counts[(int) back]++;
        }
        double zeta = 0;
        for (int i = 1; i <= KEYS; i++) {
            zeta += 1 / Math.pow(i, KeyChooser.ZIPFIAN_THETA);
        }
        // Not scattered: the newest key (0 back) is the hottest, with the zipfian share 1/zeta (3% tolerance,
        // about ten sigma), and the next ones follow in order.
        assertEquals(DRAWS / zeta, counts[0], 0.03 * DRAWS / zeta, "share of the newest key");
        assertTrue(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[1000],
                "popularity falls with age: " + counts[0] + " " + counts[1] + " " + counts[10] + " " + counts[1000]);
    }

    @Test
    void insertedKeysAreNoOtherWorkloadsKeys() {
        KeySpace keys = new KeySpace(100, 16);
        java.util.Set<String> seen = new java.util.HashSet<>();
        byte[] k = keys.newKeyBuffer();
        for (int i = 0; i < 100; i++) {
            keys.present(i, k);
            assertTrue(seen.add(Arrays.toString(k)));
            keys.missing(i, k);
            assertTrue(seen.add(Arrays.toString(k)));
        }
        for (int j = 0; j < 100; j++) {
            keys.inserted(j, k);
            assertTrue(seen.add(Arrays.toString(k)), "inserted key " + j + " collides");
        }
    }
}
