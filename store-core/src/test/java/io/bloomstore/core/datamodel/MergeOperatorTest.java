package io.bloomstore.core.datamodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Merge operators: RocksDB's semantics for absent keys, deletes, puts, snapshots, compaction and reopen. */
class MergeOperatorTest {
    private final MemoryFileSystem fs = new MemoryFileSystem();
    private final Path dir = Path.of("/merge/store");

    private Store open(MergeOperator op) throws Exception {
        return Store.open(fs, dir, StoreOptions.builder().mergeOperator(op).memtableBytes(8 * 1024).build());
    }

    @Test
    void int64CountersSurviveFlushesCompactionsAndReopen() throws Exception {
        long[] expected = new long[10];
        try (Store s = open(MergeOperators.int64Add())) {
            for (int i = 0; i < 3000; i++) {
                long delta = i % 3 == 0 ? -1 : 2;
                s.merge(b("c" + (i % 10)), MergeOperators.int64(delta));
                expected[i % 10] += delta;
            }
            assertCounters(s, expected);
            s.flush();
            s.compact();
            assertCounters(s, expected);
            // After a full compaction to the bottom level each counter is one value.
            long entries = s.stats().levels().stream().mapToLong(l -> l.entries()).sum();
            assertEquals(10, entries, "one entry per counter once compaction merged the operands");
        }
        try (Store s = open(MergeOperators.int64Add())) {
            assertCounters(s, expected);
        }
    }

    private static void assertCounters(Store s, long[] expected) throws Exception {
        for (int k = 0; k < expected.length; k++) {
            assertEquals(expected[k], MergeOperators.int64(s.get(b("c" + k))), "counter c" + k);
        }
    }

    @Test
    void absentDeletedAndOverwrittenKeys() throws Exception {
        try (Store s = open(MergeOperators.append(b(",")))) {
            s.merge(b("a"), b("1"));
            s.merge(b("a"), b("2"));
            assertEquals("1,2", str(s.get(b("a"))), "merges on an absent key");
            s.put(b("a"), b("x"));
            s.merge(b("a"), b("3"));
            assertEquals("x,3", str(s.get(b("a"))), "a put replaces the operands before it");
            s.delete(b("a"));
            s.merge(b("a"), b("4"));
            assertEquals("4", str(s.get(b("a"))), "after a delete the operands start from nothing");
            s.flush();
            s.merge(b("a"), b("5"));
            assertEquals("4,5", str(s.get(b("a"))), "operands in the memtable over a flushed table");
            WriteBatch batch = new WriteBatch().merge(b("a"), b("6")).put(b("b"), b("y")).merge(b("b"), b("7"));
            s.write(batch, WriteOptions.DEFAULT);
            assertEquals("4,5,6", str(s.get(b("a"))));
            assertEquals("y,7", str(s.get(b("b"))));
            assertEquals(List.of("a=4,5,6", "b=y,7"), scan(s, false));
            assertEquals(List.of("b=y,7", "a=4,5,6"), scan(s, true));
        }
    }

    @Test
    void snapshotsSeeTheOperandsOfTheirTimeAcrossCompactions() throws Exception {
        try (Store s = open(MergeOperators.append(b("+")))) {
            s.put(b("k"), b("base"));
            s.merge(b("k"), b("1"));
            s.flush();
            try (Snapshot snap = s.snapshot()) {
                s.merge(b("k"), b("2"));
                s.flush();
                s.merge(b("k"), b("3"));
                s.compact();
                assertEquals("base+1", str(s.get(b("k"), ReadOptions.at(snap))));
                assertEquals("base+1+2+3", str(s.get(b("k"))));
                try (StoreIterator it = s.iterator(null, null, ReadOptions.at(snap))) {
                    assertEquals("base+1", str(it.next().value()));
                }
            }
            s.compact();
            assertEquals("base+1+2+3", str(s.get(b("k"))));
        }
    }

    @Test
    void partialMergesShrinkOperandsAboveADeeperValue() throws Exception {
        AtomicInteger partials = new AtomicInteger();
        MergeOperator counting = new MergeOperator() {
            private final MergeOperator inner = MergeOperators.append(b(""));

            @Override
            public String name() {
                return "counting";
            }

            @Override
            public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
                return inner.fullMerge(key, existing, operands);
            }

            @Override
            public byte[] partialMerge(byte[] key, List<byte[]> operands) {
                partials.incrementAndGet();
                return inner.partialMerge(key, operands);
            }
        };
        try (Store s = open(counting)) {
            for (int i = 0; i < 20; i++) {
                s.merge(b("k"), b(Integer.toString(i % 10)));
            }
            assertEquals("01234567890123456789", str(s.get(b("k"))));
            s.compact();
            assertEquals("01234567890123456789", str(s.get(b("k"))));
        }
    }

    @Test
    void withoutAnOperatorMergesAreRefusedAndOperandsCannotBeRead() throws Exception {
        try (Store s = Store.open(fs, dir, StoreOptions.defaults())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.merge(b("k"), b("1")));
            assertTrue(e.getMessage().contains("mergeOperator"), e.getMessage());
            assertThrows(IllegalStateException.class,
                    () -> s.write(new WriteBatch().put(b("x"), b("1")).merge(b("k"), b("1")), WriteOptions.DEFAULT));
            assertNull(s.get(b("x")), "a refused batch writes nothing");
        }
        try (Store s = open(MergeOperators.append(b(",")))) {
            s.merge(b("k"), b("1"));
            s.put(b("plain"), b("p"));
        }
        try (Store s = Store.open(fs, dir, StoreOptions.defaults())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.get(b("k")));
            assertTrue(e.getMessage().contains("no merge operator"), e.getMessage());
            assertEquals("p", str(s.get(b("plain"))), "keys without operands read as ever");
        }
    }

    @Test
    void malformedInt64OperandsAreRefusedAndBadValuesReported() throws Exception {
        try (Store s = open(MergeOperators.int64Add())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.merge(b("k"), b("abc")));
            assertTrue(e.getMessage().contains("3 bytes, not 8"), e.getMessage());
            s.put(b("k"), b("abc"));
            s.merge(b("k"), MergeOperators.int64(1));
            assertThrows(IllegalArgumentException.class, () -> s.get(b("k")));
            // Compaction keeps what it cannot merge: the operand is still there once the value is fixed.
            s.compact();
            assertThrows(IllegalArgumentException.class, () -> s.get(b("k")));
            s.put(b("k"), MergeOperators.int64(41));
            s.merge(b("k"), MergeOperators.int64(1));
            assertArrayEquals(MergeOperators.int64(42), s.get(b("k")));
        }
    }

    @Test
    void walReplayKeepsOperands() throws Exception {
        Store s = open(MergeOperators.int64Add());
        for (int i = 0; i < 50; i++) {
            s.merge(b("k"), MergeOperators.int64(1), WriteOptions.SYNC);
        }
        // A crash: the WAL is all there is.
        fs.dropUnsyncedData();
        try (Store again = open(MergeOperators.int64Add())) {
            assertEquals(50, MergeOperators.int64(again.get(b("k"))));
        }
    }

    private static List<String> scan(Store s, boolean reverse) {
        List<String> out = new ArrayList<>();
        try (StoreIterator it = reverse ? s.reverseIterator(null, null) : s.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                out.add(str(kv.key()) + "=" + str(kv.value()));
            }
        }
        return out;
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String str(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }
}
