package io.bloomstore.core.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Per-thread lookup tallies: counts made on many threads sum exactly, while the threads run and
 * after they end; an ended thread's row is folded once (never lost, never counted twice) and
 * dropped; and a store counter's sum adds its tallied share to its own increments.
 */
class TallyRegistryTest {

    @Test
    void countsOfEndedThreadsAreKeptExactlyOnceAndTheirRowsDropped() throws Exception {
        TallyRegistry registry = new TallyRegistry(3);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            final int n = 10_000 + t;
            threads.add(new Thread(() -> {
                ThreadTally tally = registry.register();
                for (int i = 0; i < n; i++) {
                    tally.add(0);
                    if (i % 2 == 0) {
                        tally.add(2);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        long expected = 0;
        long evens = 0;
        for (int t = 0; t < 8; t++) {
            expected += 10_000 + t;
            evens += (10_000 + t + 1) / 2;
        }
        assertEquals(expected, registry.sum(0));
        assertEquals(0, registry.sum(1));
        assertEquals(evens, registry.sum(2));
        assertEquals(0, registry.rows(), "ended threads' rows are folded and dropped");
        // Summing again neither loses nor repeats the folded counts.
        assertEquals(expected, registry.sum(0));
        assertEquals(evens, registry.sum(2));
    }

    @Test
    void registrationsFromShortLivedThreadsDoNotPileUpRows() throws Exception {
        TallyRegistry registry = new TallyRegistry(1);
        for (int t = 0; t < 500; t++) {
            Thread thread = new Thread(() -> registry.register().add(0));
            thread.start();
            thread.join();
        }
        assertTrue(registry.rows() <= 2 * 16 + 16, "rows held: " + registry.rows());
        assertEquals(500, registry.sum(0));
        assertEquals(0, registry.rows());
    }

    @Test
    void aLiveThreadsRowCountsAtOnce() {
        TallyRegistry registry = new TallyRegistry(1);
        ThreadTally mine = registry.register();
        mine.add(0);
        mine.add(0);
        assertEquals(2, registry.sum(0));
        assertEquals(1, registry.rows());
    }

    @Test
    void storeCountersAddTheirTalliedShare() throws Exception {
        StoreCounters counters = new StoreCounters(2);
        counters.gets().increment();
        counters.newTally().add(StoreCounters.GETS);
        Thread other = new Thread(() -> {
            ThreadTally t = counters.newTally();
            t.add(StoreCounters.GETS);
            t.add(StoreCounters.levelSlot(1, LevelCounters.FILTER_NEGATIVES));
            t.add(StoreCounters.levelSlot(1, LevelCounters.FILTER_NEGATIVES));
            t.add(StoreCounters.levelSlot(0, LevelCounters.PROBES));
        });
        other.start();
        other.join();
        assertEquals(3, counters.gets().sum());
        assertEquals(2, counters.level(1).filterNegatives().sum());
        assertEquals(0, counters.level(0).filterNegatives().sum());
        assertEquals(1, counters.level(0).probes().sum());
        assertEquals(0, counters.filterNegatives().sum(), "level slots are not the store-wide ones");
    }
}
