package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary writing, flushing and compacting without pause while secondaries open and catch up
 * over and over: every view is a consistent prefix ({@link SecondaryChecks}) holding every write
 * acknowledged before it was made (every 20th with sync, the others without), and later views see
 * newer writes.
 */
class SecondaryConcurrentTest {
    private static final int KEYS = 300;

    @TempDir
    Path tmp;

    @Test
    void viewsOfABusyPrimaryAreConsistentPrefixes() throws Exception {
        check(StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10)
                .baseLevelBytes(128 << 10).build());
    }

    /** The same with a MANIFEST rolled every few edits: CURRENT switched and the old MANIFEST deleted under the views. */
    @Test
    void viewsSurviveManifestRolls() throws Exception {
        check(StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10)
                .baseLevelBytes(128 << 10).maxManifestBytes(2 << 10).build());
    }

    private void check(StoreOptions small) throws Exception {
        Path dir = tmp.resolve("db");
        AtomicLong synced = new AtomicLong(-1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        try (Store primary = Store.open(dir, small)) {
            Thread writer = new Thread(new Writer(primary, synced, failure, stop), "primary-writer");
            writer.start();
            try {
                while (synced.get() < 1000) {
                    Thread.sleep(5);
                }
                long deadline = System.nanoTime() + 4_000_000_000L;
                int views = 0;
                long lastNewest = -1;
                long firstNewest = -1;
                int opens = 0;
                while (System.nanoTime() < deadline && failure.get() == null) {
                    long before = synced.get();
                    try (SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch" + (opens++ % 2)))) {
                        long newest = SecondaryChecks.checkPrefix(sec, KEYS, before);
                        for (int round = 0; round < 15; round++) {
                            Thread.sleep(10);
                            long b = synced.get();
                            sec.catchUp();
                            long n = SecondaryChecks.checkPrefix(sec, KEYS, b);
                            assertTrue(n >= newest, "a catch-up went back from " + newest + " to " + n);
                            newest = n;
                            views++;
                        }
                        // Not checked per view: the primary may be held a moment by its own write stall.
                        assertTrue(newest >= lastNewest, "a later secondary went back from " + lastNewest + " to "
                                + newest);
                        firstNewest = firstNewest < 0 ? newest : firstNewest;
                        lastNewest = newest;
                    }
                }
                assertTrue(views >= 15, "views checked: " + views);
                assertTrue(lastNewest > firstNewest || failure.get() != null, "later views see newer writes: "
                        + firstNewest + " then " + lastNewest + ", acknowledged " + synced.get());
            } finally {
                stop.set(true);
                writer.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("the primary failed", failure.get());
            }
            assertTrue(primary.stats().compactions() > 0, "the primary compacted meanwhile");
        }
    }

    /** Writes the history of {@link SecondaryChecks}, every 20th write with sync, until stopped; {@code synced}: the last write acknowledged. */
    private static final class Writer implements Runnable {
        private final Store store;
        private final AtomicLong synced;
        private final AtomicReference<Throwable> failure;
        private final java.util.concurrent.atomic.AtomicBoolean stop;

        Writer(Store store, AtomicLong synced, AtomicReference<Throwable> failure,
               java.util.concurrent.atomic.AtomicBoolean stop) {
            this.stop = stop;
            this.store = store;
            this.synced = synced;
            this.failure = failure;
        }

        @Override
        public void run() {
            try {
                for (long i = 0; !stop.get(); i++) {
                    boolean sync = i % 20 == 19;
                    store.put(SecondaryChecks.key(i, KEYS), SecondaryChecks.value(i),
                            sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                    // Acknowledged, with sync or without: in the operating system's hands, which
                    // is what a secondary reads.
                    synced.set(i);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }
    }
}
