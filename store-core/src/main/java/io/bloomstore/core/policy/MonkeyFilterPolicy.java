package io.bloomstore.core.policy;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.FilterPolicy;
import io.bloomstore.core.LevelShape;
import io.bloomstore.core.table.TableOptions;

/**
 * Monkey (Dayan, Athanassoulis, Idreos, SIGMOD 2017): spends a total filter memory of
 * {@code budgetBitsPerKey} × (all entries) so that the sum of the levels' false-positive rates —
 * the expected data-block reads of a lookup for a missing key — is smallest.
 *
 * <p>Cheat sheet (level i holds n_i entries with b_i bits per entry, N = Σ n_i, budget M bits):
 * <pre>
 *   p_i = e^(−(ln 2)² · b_i)                      Bloom filter at its optimal k
 *   minimise Σ p_i  subject to  Σ n_i · b_i = M
 *   Lagrange:  1 = λ · n_i / ((ln 2)² · p_i)   ⇒  p_i = c · n_i   (rate ∝ the level's entries)
 *   ln c = −(M · (ln 2)² + Σ n_i · ln n_i) / N
 * </pre>
 * A level whose p_i would reach 1 gets no filter and the rest is solved again without it; the
 * largest levels lose their filters first. Rates are relative, so entry counts in any unit work.
 * Compared with the uniform allocation at the same memory, the small upper levels get more bits
 * and the largest level fewer.
 *
 * <p>Thread safety: immutable.
 */
public final class MonkeyFilterPolicy implements FilterPolicy {
    private static final double LN2_SQUARED = Math.log(2) * Math.log(2);

    private final FilterKind kind;
    private final double budgetBitsPerKey;

    public MonkeyFilterPolicy(FilterKind kind, double budgetBitsPerKey) {
        if (kind == null) {
            throw new IllegalArgumentException("monkey needs a filter kind");
        }
        if (!(budgetBitsPerKey > 0 && budgetBitsPerKey <= TableOptions.MAX_BITS_PER_KEY)) {
            throw new IllegalArgumentException("budget bits per key must be in (0, " + TableOptions.MAX_BITS_PER_KEY
                    + "]: " + budgetBitsPerKey);
        }
        this.kind = kind;
        this.budgetBitsPerKey = budgetBitsPerKey;
    }

    @Override
    public FilterChoice choose(int level, LevelShape shape) {
        double bits = allocate(shape.entries(), budgetBitsPerKey)[level];
        if (bits <= 0) {
            return FilterChoice.none(String.format("monkey: the %.2f bits/key budget buys more at other levels",
                    budgetBitsPerKey));
        }
        return FilterChoice.filter(kind, Math.min(bits, TableOptions.MAX_BITS_PER_KEY),
                String.format("monkey, budget %.2f bits/key", budgetBitsPerKey));
    }

    /**
     * Bits per entry for each level (0 for empty levels and levels left without filter) so that
     * Σ entries_i · bits_i = budget · Σ entries_i and Σ e^(−(ln 2)² · bits_i) is smallest.
     */
    public static double[] allocate(long[] entries, double budgetBitsPerKey) {
        int levels = entries.length;
        boolean[] active = new boolean[levels];
        double total = 0;
        for (int i = 0; i < levels; i++) {
            if (entries[i] < 0) {
                throw new IllegalArgumentException("negative entry count at level " + i);
            }
            active[i] = entries[i] > 0;
            total += entries[i];
        }
        double memory = budgetBitsPerKey * total * LN2_SQUARED;
        double[] bits = new double[levels];
        while (true) {
            double n = 0;
            double nLogN = 0;
            for (int i = 0; i < levels; i++) {
                if (active[i]) {
                    n += entries[i];
                    nLogN += entries[i] * Math.log(entries[i]);
                }
            }
            if (n == 0) {
                return bits;
            }
            double logC = -(memory + nLogN) / n;
            boolean clamped = false;
            for (int i = 0; i < levels; i++) {
                if (active[i] && logC + Math.log(entries[i]) >= 0) {
                    active[i] = false;
                    clamped = true;
                }
            }
            if (!clamped) {
                for (int i = 0; i < levels; i++) {
                    bits[i] = active[i] ? -(logC + Math.log(entries[i])) / LN2_SQUARED : 0;
                }
                return bits;
            }
        }
    }

    /** The sum of the levels' rates, e^(−(ln 2)² · bits_i), over levels holding entries (1 without filter). */
    public static double sumOfRates(long[] entries, double[] bits) {
        double sum = 0;
        for (int i = 0; i < entries.length; i++) {
            if (entries[i] > 0) {
                sum += bits[i] > 0 ? Math.exp(-LN2_SQUARED * bits[i]) : 1;
            }
        }
        return sum;
    }

    @Override
    public String name() {
        return "monkey";
    }

    @Override
    public String toString() {
        return "monkey[" + kind.cliName() + ", budget " + budgetBitsPerKey + " bits/key]";
    }
}
