package io.bloomstore.core.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.internal.ValueType;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The insert's splice (a key that falls right after the last insert is linked without a search):
 * runs of ascending keys, descending ones, random keys, new versions of a key and replacements of
 * an entry (same key and sequence) mixed, checked against a model on every level: level 0 holds
 * exactly the model's entries in order, every higher level is an ordered subsequence of it, and a
 * search (which walks the higher levels) finds every entry. Randomised; the seed is printed.
 */
class InlineSkipListSpliceTest {
    private static final long SEED = Long.getLong("memtable.seed", System.nanoTime());

    private record Entry(byte[] key, long sequence) {
    }

    private static final Comparator<Entry> ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.key, b.key);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    private static byte[] key(long k, int length) {
        byte[] b = new byte[length];
        ByteBuffer.wrap(b).putLong(length - 8, k);
        return b;
    }

    @Test
    void everyLevelStaysOrderedWhateverTheInsertOrder() {
        Random rnd = new Random(SEED);
        String seed = "seed " + SEED + " (-Dmemtable.seed)";
        InlineSkipList list = new InlineSkipList(1 << 20);
        TreeMap<Entry, byte[]> model = new TreeMap<>(ORDER);
        long sequence = 1;
        for (int round = 0; round < 400; round++) {
            int mode = rnd.nextInt(6);
            int run = 1 + rnd.nextInt(200);
            long start = rnd.nextInt(1_000_000);
            int length = rnd.nextBoolean() ? 16 : 9 + rnd.nextInt(8);
            for (int i = 0; i < run; i++) {
                byte[] k;
                long seq;
                switch (mode) {
                    case 0 -> { // ascending, as a batched fill
                        k = key(start + i * (1 + rnd.nextInt(3)) * 7L, 16);
                        seq = sequence++;
                    }
                    case 1 -> { // descending
                        k = key(start - i * 5L, length);
                        seq = sequence++;
                    }
                    case 2 -> { // random
                        k = key(rnd.nextInt(1_000_000), length);
                        seq = sequence++;
                    }
                    case 3 -> { // versions of one key, each newer
                        k = key(start, 16);
                        seq = sequence++;
                    }
                    case 4 -> { // ascending, with an existing entry replaced now and then between two inserts
                        if (i > 0 && rnd.nextInt(3) == 0) {
                            Entry e = model.ceilingKey(new Entry(key(rnd.nextInt(1_000_000), 16), Long.MAX_VALUE));
                            e = e == null ? model.firstKey() : e;
                            byte[] replaced = {(byte) i};
                            list.insert(e.key, e.sequence, ValueType.VALUE, replaced);
                            model.put(e, replaced);
                        }
                        k = key(start + i, 16);
                        seq = sequence++;
                    }
                    default -> { // an existing entry again: its value is replaced
                        if (model.isEmpty()) {
                            continue;
                        }
                        Entry e = model.ceilingKey(new Entry(key(rnd.nextInt(1_000_000), 16), Long.MAX_VALUE));
                        if (e == null) {
                            e = model.firstKey();
                        }
                        k = e.key;
                        seq = e.sequence;
                    }
                }
                byte[] value = new byte[1 + rnd.nextInt(20)];
                rnd.nextBytes(value);
                list.insert(k, seq, ValueType.VALUE, value);
                model.put(new Entry(k, seq), value);
            }
        }
        // Level 0: exactly the model, in order.
        Set<Integer> level0 = new HashSet<>();
        int node = list.first();
        for (Map.Entry<Entry, byte[]> e : model.entrySet()) {
            assertNotEquals(InlineSkipList.NONE, node, seed);
            assertArrayEquals(e.getKey().key, list.key(node), seed);
            assertEquals(e.getKey().sequence, list.sequence(node), seed);
            assertArrayEquals(e.getValue(), list.value(node), seed);
            level0.add(node);
            node = list.next(node);
        }
        assertEquals(InlineSkipList.NONE, node, "no entry past the model's: " + seed);
        // Every higher level: an ordered subsequence of level 0.
        for (int level = 1; level < list.levels(); level++) {
            Entry previous = null;
            for (int n = list.firstAt(level); n != InlineSkipList.NONE; n = list.nextAt(n, level)) {
                assertTrue(level0.contains(n), "level " + level + " links a node level 0 lacks: " + seed);
                Entry e = new Entry(list.key(n), list.sequence(n));
                assertTrue(previous == null || ORDER.compare(previous, e) < 0, "level " + level + " out of order: " + seed);
                previous = e;
            }
        }
        // A search through the levels finds every entry.
        for (Entry e : model.keySet()) {
            int found = list.find(e.key, e.sequence);
            assertNotEquals(InlineSkipList.NONE, found, seed);
            assertEquals(e.sequence, list.sequence(found), seed);
        }
    }
}
