package io.bloomstore.core.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.Filters;
import io.bloomstore.core.internal.ValueType;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The memtable's whole-key filter: no key it took is ever answered absent, its false-positive
 * rate is that of a cache-line-blocked Bloom filter of its size, and a memtable answers a lookup
 * the filter rules out with nothing (and one it lets through as before). Seed 42 throughout; the
 * rates' tolerances are stated where they are checked.
 */
class MemTableFilterTest {
    private static final long SEED = 42;

    @Test
    void sizedFromTheMemtableAndNoneBelowOneBlock() {
        assertEquals(64 << 10, MemTableFilter.forMemtable(4L << 20, 1.0 / 64).bytes());
        // Whole 64-byte blocks, rounded down.
        assertEquals(1024, MemTableFilter.forMemtable(65_600, 1.0 / 64).bytes());
        assertNull(MemTableFilter.forMemtable(0, 1.0 / 64));
        assertNull(MemTableFilter.forMemtable(4L << 20, 0));
        assertNull(MemTableFilter.forMemtable(4000, 1.0 / 64));
    }

    @Test
    void neverForgetsAKeyAndFalsePositivesMatchItsSize() {
        // 64 KiB: 28,000 keys is the default memtable holding 100-byte values (18.7 bits per
        // key), 56,000 tiny entries (9.4 bits). Theory for a blocked filter with 6 probes: about
        // 0.05% and 1.4%; the bounds allow 4x and 2x that (100,000 absent probes each).
        checkRate(28_000, 0.002);
        checkRate(56_000, 0.028);
    }

    private static void checkRate(int keys, double maxRate) {
        MemTableFilter f = MemTableFilter.forMemtable(4L << 20, 1.0 / 64);
        Random rnd = new Random(SEED);
        Set<String> added = new HashSet<>();
        byte[][] inserted = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            byte[] k = new byte[16];
            rnd.nextBytes(k);
            inserted[i] = k;
            added.add(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1));
            f.add(Filters.hash(k));
        }
        for (byte[] k : inserted) {
            assertTrue(f.mightContain(Filters.hash(k)), "a key the filter took is never ruled out");
        }
        int falsePositives = 0;
        int probes = 0;
        while (probes < 100_000) {
            byte[] k = new byte[16];
            rnd.nextBytes(k);
            if (added.contains(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1))) {
                continue;
            }
            probes++;
            if (f.mightContain(Filters.hash(k))) {
                falsePositives++;
            }
        }
        double rate = falsePositives / (double) probes;
        System.out.printf("MemTableFilterTest: %d keys in 64 KiB, false-positive rate %.5f%n", keys, rate);
        assertTrue(rate <= maxRate, keys + " keys: false-positive rate " + rate + " over " + maxRate);
    }

    @Test
    void aMemtableWithAFilterAnswersAsOneWithout() {
        MemTable with = new MemTable(1, 1 << 20, 1.0 / 64);
        MemTable without = new MemTable(1, 1 << 20, 0);
        Random rnd = new Random(SEED);
        byte[][] keys = new byte[5_000][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new byte[8 + rnd.nextInt(24)];
            rnd.nextBytes(keys[i]);
            ValueType type = i % 7 == 0 ? ValueType.DELETION : ValueType.VALUE;
            byte[] value = type == ValueType.DELETION ? new byte[0] : new byte[] {(byte) i};
            with.add(keys[i], i + 1, type, value);
            without.add(keys[i], i + 1, type, value);
        }
        for (int i = 0; i < keys.length; i++) {
            var a = with.get(keys[i], Long.MAX_VALUE);
            var b = without.get(keys[i], Long.MAX_VALUE);
            assertNotNull(a, "tombstones and values alike are found");
            assertEquals(b.getKey().sequence(), a.getKey().sequence());
            assertEquals(b.getKey().type(), a.getKey().type());
            // Below the entry's sequence, both memtables hold nothing for the key.
            assertNull(with.get(keys[i], i));
        }
        for (int i = 0; i < 5_000; i++) {
            byte[] absent = new byte[40];
            rnd.nextBytes(absent);
            assertNull(with.get(absent, Long.MAX_VALUE));
            assertNull(with.get(absent, Filters.hash(absent), Long.MAX_VALUE));
        }
    }
}
