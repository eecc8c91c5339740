package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Point lookups count in per-thread rows (no atomic per event); the store's statistics must
 * still add up exactly: lookups made on threads that have since ended, on live threads and on
 * the caller's thread all show, each once, in the store-wide and per-level counts.
 */
class LookupTallyTest {
    @TempDir
    Path dir;

    @Test
    void lookupsOnEndedAndLiveThreadsAllCountExactlyOnce() throws Exception {
        try (Store store = Store.open(dir, StoreOptions.builder().build())) {
            for (int i = 0; i < 2_000; i += 2) {
                store.put(key(i), key(i));
            }
            store.flush();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 2_000; i++) {
                            byte[] v = store.get(key(i));
                            if ((i % 2 == 0) != (v != null)) {
                                throw new AssertionError("key " + i + ": " + (v == null ? "missing" : "found"));
                            }
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertNull(failure.get());
            assertNotNull(store.get(key(0)));
            assertNull(store.get(key(1)));

            StoreStats stats = store.stats();
            assertEquals(4 * 2_000 + 2, stats.gets());
            // Every lookup but key 1999's (past the table's last key, once per thread) reached the one
            // flushed table, whose filter answered for every missing key (negative or false
            // positive) and said "maybe" for every present one.
            assertEquals(4 * 1_999 + 2, stats.tableLookups());
            assertEquals(stats.tableLookups(), stats.filterNegatives() + stats.filterPositives());
            assertEquals(4 * 1_000 + 1, stats.filterTruePositives());
            assertTrue(stats.filterNegatives() > 4 * 1_000 * 0.9, "filter negatives " + stats.filterNegatives());
            long probes = 0;
            for (StoreStats.LevelStats level : stats.levels()) {
                probes += level.probes();
            }
            assertEquals(stats.tableLookups(), probes);
        }
    }

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII);
    }
}
