package io.bloomstore.core.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The memtable's value arena: values copied in (the caller's array is not kept), of every size
 * from empty to past a chunk of their own, across chunk ends, read back equal by lookups, by
 * iterators' copies and by their in-place slices; a lookup's value is the caller's own copy.
 * Randomised sizes; the seed is printed.
 */
class MemTableValueArenaTest {
    private static final long SEED = Long.getLong("memtable.seed", System.nanoTime());

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes();
    }

    private static byte[] value(Random rnd, int length) {
        byte[] v = new byte[length];
        rnd.nextBytes(v);
        return v;
    }

    @Test
    void valuesOfEverySizeComeBackEqualAndTheCallersArraysAreNotKept() throws Exception {
        System.out.println("MemTableValueArenaTest seed " + SEED);
        Random rnd = new Random(SEED);
        for (long expected : new long[] {0, 64 << 10, 4 << 20}) {
            MemTable mem = new MemTable(1, expected);
            List<byte[]> values = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                int kind = rnd.nextInt(100);
                int length = kind < 5 ? 0 : kind < 8 ? (1 << 20) + rnd.nextInt(1 << 20)
                        : kind < 20 ? rnd.nextInt(64 << 10) : rnd.nextInt(2048);
                byte[] v = value(rnd, length);
                values.add(v.clone());
                mem.add(key(i), i + 1, ValueType.VALUE, v);
                // The memtable copied it: the caller may reuse its array at once.
                Arrays.fill(v, (byte) 0x5a);
            }
            for (int i = 0; i < values.size(); i++) {
                Map.Entry<InternalKey, byte[]> e = mem.get(key(i), Long.MAX_VALUE >>> 8);
                assertArrayEquals(values.get(i), e.getValue(), "value " + i + " (expected bytes " + expected + ")");
                if (e.getValue().length > 0) {
                    e.getValue()[0] ^= 1;
                    assertArrayEquals(values.get(i), mem.get(key(i), Long.MAX_VALUE >>> 8).getValue(),
                            "a lookup's value is the caller's own copy");
                }
            }
            try (InternalIterator it = mem.iterator()) {
                int i = 0;
                for (it.seekToFirst(); it.valid(); it.next(), i++) {
                    byte[] expectedValue = values.get(i);
                    assertArrayEquals(expectedValue, it.value());
                    assertEquals(expectedValue.length, it.valueLength());
                    int at = it.valueOffset();
                    assertArrayEquals(expectedValue, Arrays.copyOfRange(it.valueArray(), at, at + it.valueLength()));
                }
                assertEquals(values.size(), i);
            }
        }
    }

    @Test
    void anEqualEntryReplacesItsValueAndTombstonesHaveNone() throws Exception {
        MemTable mem = new MemTable(1, 1 << 20);
        mem.add(key(1), 5, ValueType.VALUE, new byte[] {1, 2, 3});
        mem.add(key(1), 5, ValueType.VALUE, new byte[] {9, 8, 7, 6});
        mem.add(key(2), 6, ValueType.DELETION, new byte[0]);
        assertArrayEquals(new byte[] {9, 8, 7, 6}, mem.get(key(1), 10).getValue());
        Map.Entry<InternalKey, byte[]> tombstone = mem.get(key(2), 10);
        assertEquals(ValueType.DELETION, tombstone.getKey().type());
        assertEquals(0, tombstone.getValue().length);
        assertEquals(2, mem.entries());
        byte[] a = mem.get(key(1), 10).getValue();
        byte[] b = mem.get(key(1), 10).getValue();
        assertNotSame(a, b);
        assertTrue(mem.approximateBytes() > 7);
    }
}
