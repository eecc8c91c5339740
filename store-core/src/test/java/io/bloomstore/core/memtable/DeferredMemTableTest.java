package io.bloomstore.core.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A deferred memtable (a read-only open's replayed WAL) answers exactly as a memtable that took
 * the same adds: lookups by scanning its entries (the first {@value MemTable#SCANNED_LOOKUPS}),
 * then from its list, with snapshots, tombstones and several versions per key; its iterator,
 * counts and bytes are the list's; values handed out are copies; and concurrent readers that
 * meet it unsorted all get the right answers. Seed 20261127.
 */
class DeferredMemTableTest {
    private static final long SEED = 20261127L;

    private record Op(byte[] key, long sequence, ValueType type, byte[] value) {
    }

    private static List<Op> ops(Random rnd, int n) {
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = new byte[1 + rnd.nextInt(3)];
            for (int b = 0; b < key.length; b++) {
                key[b] = (byte) (0x7e + rnd.nextInt(4));
            }
            boolean delete = rnd.nextInt(5) == 0;
            byte[] value = new byte[delete ? 0 : rnd.nextInt(40)];
            rnd.nextBytes(value);
            ops.add(new Op(key, i + 1, delete ? ValueType.DELETION : ValueType.VALUE, value));
        }
        return ops;
    }

    private static void assertSameAnswer(Map.Entry<InternalKey, byte[]> expected, Map.Entry<InternalKey, byte[]> actual,
                                         String what) {
        if (expected == null) {
            assertNull(actual, what);
            return;
        }
        assertArrayEquals(expected.getKey().userKey(), actual.getKey().userKey(), what);
        assertEquals(expected.getKey().sequence(), actual.getKey().sequence(), what);
        assertEquals(expected.getKey().type(), actual.getKey().type(), what);
        assertArrayEquals(expected.getValue(), actual.getValue(), what);
    }

    @Test
    void answersAsAnEagerMemtableBeforeAndAfterSorting() throws Exception {
        Random rnd = new Random(SEED);
        for (int round = 0; round < 30; round++) {
            List<Op> ops = ops(rnd, 1 + rnd.nextInt(400));
            MemTable eager = new MemTable(7);
            MemTable deferred = MemTable.deferred(7);
            for (Op op : ops) {
                eager.add(op.key().clone(), op.sequence(), op.type(), op.value().clone());
                deferred.add(op.key().clone(), op.sequence(), op.type(), op.value().clone());
            }
            assertEquals(eager.entries(), deferred.entries());
            assertEquals(eager.isEmpty(), deferred.isEmpty());
            assertEquals(7, deferred.logNumber());
            // Scanned lookups, then listed ones: the same answers at every snapshot.
            for (int q = 0; q < 3 * MemTable.SCANNED_LOOKUPS; q++) {
                byte[] key = rnd.nextBoolean() ? ops.get(rnd.nextInt(ops.size())).key() : ops(rnd, 1).get(0).key();
                long snapshot = rnd.nextInt(ops.size() + 2);
                Map.Entry<InternalKey, byte[]> d = deferred.get(key, snapshot);
                assertSameAnswer(eager.get(key, snapshot), d, "round " + round + ", lookup " + q);
                if (d != null && d.getValue().length > 0) {
                    // The caller owns the value: changing it changes nothing stored.
                    d.getValue()[0]++;
                    assertSameAnswer(eager.get(key, snapshot), deferred.get(key, snapshot), "after changing a copy");
                }
            }
            assertEquals(eager.approximateBytes(), deferred.approximateBytes(), "bytes of the same adds");
            InternalIterator a = eager.iterator();
            InternalIterator b = deferred.iterator();
            a.seekToFirst();
            b.seekToFirst();
            while (a.valid()) {
                assertTrue(b.valid());
                assertArrayEquals(a.key(), b.key());
                assertEquals(a.sequence(), b.sequence());
                assertEquals(a.type(), b.type());
                assertArrayEquals(a.value(), b.value());
                a.next();
                b.next();
            }
            assertFalse(b.valid());
        }
    }

    @Test
    void anIteratorSortsADeferredMemtableBeforeAnyLookup() throws Exception {
        MemTable deferred = MemTable.deferred(1);
        deferred.add(new byte[] {3}, 1, ValueType.VALUE, new byte[] {30});
        deferred.add(new byte[] {1}, 2, ValueType.VALUE, new byte[] {10});
        deferred.add(new byte[] {3}, 3, ValueType.DELETION, new byte[0]);
        InternalIterator it = deferred.iterator();
        it.seekToFirst();
        List<String> seen = new ArrayList<>();
        for (; it.valid(); it.next()) {
            seen.add(it.key()[0] + "@" + it.sequence() + ":" + it.type());
        }
        assertEquals(List.of("1@2:VALUE", "3@3:DELETION", "3@1:VALUE"), seen);
        assertEquals(ValueType.DELETION, deferred.get(new byte[] {3}, 5).getKey().type());
        assertEquals(30, deferred.get(new byte[] {3}, 2).getValue()[0]);
    }

    @Test
    void concurrentReadersOfAnUnsortedMemtableAllAnswerRight() throws Exception {
        Random rnd = new Random(SEED + 1);
        List<Op> ops = ops(rnd, 5_000);
        for (int round = 0; round < 20; round++) {
            MemTable eager = new MemTable(1);
            MemTable deferred = MemTable.deferred(1);
            for (Op op : ops) {
                eager.add(op.key(), op.sequence(), op.type(), op.value());
                deferred.add(op.key().clone(), op.sequence(), op.type(), op.value().clone());
            }
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> readers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    Random r = new Random(SEED + round * 10L + t);
                    readers.add(pool.submit(() -> {
                        for (int q = 0; q < 50; q++) {
                            Op op = ops.get(r.nextInt(ops.size()));
                            long snapshot = 1 + r.nextInt(ops.size());
                            assertSameAnswer(eager.get(op.key(), snapshot), deferred.get(op.key(), snapshot),
                                    "concurrent lookup");
                        }
                        return null;
                    }));
                }
                for (Future<?> f : readers) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
