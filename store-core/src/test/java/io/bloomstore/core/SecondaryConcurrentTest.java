package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary writing, flushing and compacting without pause while secondaries open and catch up
 * over and over: every view is a consistent prefix ({@link SecondaryChecks}) holding every write
 * acknowledged before it was made (every 20th with sync, the others without), and later views see
 * newer writes; and catch-ups that read on in the WAL beside readers of the view they extend.
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

    /**
     * One secondary over a primary that does not flush (a 64 MiB memtable): every catch-up reads
     * on in the WAL into the same view (no second view directory appears), while two threads read
     * the secondary without pause through iterators, each a consistent prefix holding what the
     * last finished catch-up held, and point reads, each a value its key had.
     */
    @Test
    void catchUpsThatReadOnServeConcurrentReaders() throws Exception {
        Path dir = tmp.resolve("db");
        Path scratch = tmp.resolve("scratch");
        AtomicLong synced = new AtomicLong(-1);
        AtomicLong caughtUp = new AtomicLong(-1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        StoreOptions big = StoreOptions.builder().memtableBytes(64 << 20).build();
        try (Store primary = Store.open(dir, big)) {
            Thread writer = new Thread(new Writer(primary, synced, failure, stop), "primary-writer");
            writer.start();
            List<Thread> readers = new ArrayList<>();
            try {
                while (synced.get() < 1000) {
                    Thread.sleep(5);
                }
                try (SecondaryStore sec = Store.openSecondary(dir, scratch, big)) {
                    for (int r = 0; r < 2; r++) {
                        Thread t = new Thread(new Reader(sec, caughtUp, failure, stop), "secondary-reader-" + r);
                        t.start();
                        readers.add(t);
                    }
                    long deadline = System.nanoTime() + 3_000_000_000L;
                    int catchUps = 0;
                    while (System.nanoTime() < deadline && failure.get() == null) {
                        long before = synced.get();
                        sec.catchUp();
                        caughtUp.set(before);
                        catchUps++;
                        Thread.sleep(1);
                    }
                    stop.set(true);
                    for (Thread t : readers) {
                        t.join();
                    }
                    assertTrue(catchUps >= 100, "catch-ups: " + catchUps);
                    try (var views = java.nio.file.Files.list(scratch)) {
                        assertEquals(List.of("LOCK", "view-0"), views.map(p -> p.getFileName().toString()).sorted()
                                .toList(), "every catch-up read on into the first view");
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("a thread failed", failure.get());
            }
        }
    }

    /** Reads a secondary until stopped: an iterator's consistent prefix, then a point read of each key. */
    private static final class Reader implements Runnable {
        private final SecondaryStore sec;
        private final AtomicLong caughtUp;
        private final AtomicReference<Throwable> failure;
        private final java.util.concurrent.atomic.AtomicBoolean stop;

        Reader(SecondaryStore sec, AtomicLong caughtUp, AtomicReference<Throwable> failure,
               java.util.concurrent.atomic.AtomicBoolean stop) {
            this.sec = sec;
            this.caughtUp = caughtUp;
            this.failure = failure;
            this.stop = stop;
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    SecondaryChecks.checkPrefix(sec, KEYS, caughtUp.get());
                    for (int k = 0; k < KEYS; k += 7) {
                        byte[] v = sec.get(("k" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        String s = new String(v, java.nio.charset.StandardCharsets.UTF_8);
                        long i = Long.parseLong(s.substring(0, s.indexOf(':')));
                        assertEquals(k, i % KEYS, "k" + k + " holds write " + i);
                        assertArrayEquals(SecondaryChecks.value(i), v);
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }
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
