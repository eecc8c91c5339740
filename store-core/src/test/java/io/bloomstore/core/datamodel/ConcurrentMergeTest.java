package io.bloomstore.core.datamodel;

import static io.bloomstore.core.datamodel.MergeOperatorTest.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counters under concurrency: four writers add 1 to eight counters with {@code int64Add} merges
 * (single merges and batches of two, group-committed together) while small memtables flush and
 * background compactions merge the operands; two readers check that no counter ever goes down
 * (gets and scans), and at the end every counter holds exactly the increments made, also after a
 * full compaction and a reopen.
 */
class ConcurrentMergeTest {
    private static final int WRITERS = 4;
    private static final int COUNTERS = 8;
    private static final int PER_WRITER = 6_000;

    @TempDir
    Path tmp;

    @Test
    void countersNeverGoDownAndEndExact() throws Exception {
        StoreOptions options = StoreOptions.builder().mergeOperator(MergeOperators.int64Add()).memtableBytes(16 * 1024)
                .l0Triggers(2, 8, 12).baseLevelBytes(64 * 1024).targetFileBytes(16 * 1024).build();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[][] made = new long[WRITERS][COUNTERS];
        try (Store store = Store.open(tmp.resolve("s"), options)) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < PER_WRITER; i++) {
                            int c = (i * 31 + writer) % COUNTERS;
                            if (i % 5 == 0) {
                                int d = (c + 1) % COUNTERS;
                                store.write(new WriteBatch().merge(b("c" + c), MergeOperators.int64(1))
                                        .merge(b("c" + d), MergeOperators.int64(1)), WriteOptions.DEFAULT);
                                made[writer][d]++;
                            } else {
                                store.merge(b("c" + c), MergeOperators.int64(1));
                            }
                            made[writer][c]++;
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            Thread[] readers = new Thread[2];
            for (int r = 0; r < readers.length; r++) {
                boolean scans = r == 1;
                readers[r] = new Thread(() -> {
                    long[] seen = new long[COUNTERS];
                    try {
                        while (threads.stream().anyMatch(Thread::isAlive) && failure.get() == null) {
                            if (scans) {
                                try (StoreIterator it = store.iterator(null, null)) {
                                    while (it.hasNext()) {
                                        KeyValue kv = it.next();
                                        int c = Integer.parseInt(new String(kv.key()).substring(1));
                                        check(seen, c, MergeOperators.int64(kv.value()));
                                    }
                                }
                            } else {
                                for (int c = 0; c < COUNTERS; c++) {
                                    byte[] v = store.get(b("c" + c));
                                    check(seen, c, v == null ? 0 : MergeOperators.int64(v));
                                }
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                });
            }
            threads.forEach(Thread::start);
            for (Thread r : readers) {
                r.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            for (Thread r : readers) {
                r.join();
            }
            assertNull(failure.get(), () -> "failed: " + failure.get());
            assertCounters(store, made);
            store.compact();
            assertCounters(store, made);
        }
        try (Store store = Store.open(tmp.resolve("s"), options)) {
            assertCounters(store, made);
        }
    }

    private static void check(long[] seen, int c, long value) {
        if (value < seen[c]) {
            throw new AssertionError("counter c" + c + " went down from " + seen[c] + " to " + value);
        }
        seen[c] = value;
    }

    private static void assertCounters(Store store, long[][] made) throws Exception {
        for (int c = 0; c < COUNTERS; c++) {
            long expected = 0;
            for (long[] w : made) {
                expected += w[c];
            }
            assertEquals(expected, MergeOperators.int64(store.get(b("c" + c))), "counter c" + c);
        }
    }
}
