package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.compaction.Compaction;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Background compactions side by side ({@code maxBackgroundJobs} 3). Writers fill a store whose
 * tiny levels keep several compactions due at once, while a checker samples the running
 * compactions and the current version: no two running compactions share a table or write
 * overlapping ranges of one level, levels ≥ 1 never hold overlapping tables, and level-0 tables
 * never interleave in sequence numbers (newest first). Several compactions ran at once and merges
 * inside level 0 ran, and level 0 → 1 compactions were split by key range over the threads
 * (subcompactions, whose outputs the level checks above cover); every key holds its last value live and after a reopen, which replays the
 * MANIFEST's edits in their order; the store verifies clean. Then crashes at random moments while
 * compactions run: the reopened store holds a prefix of each writer's history with every synced
 * write. Seeds are printed.
 */
class BackgroundJobsTest {
    private static final Path DIR = Path.of("/background-jobs");
    private static final int WRITERS = 3;
    private static final int KEYS_PER_WRITER = 400;

    private static StoreOptions options() {
        return StoreOptions.builder().memtableBytes(8 * 1024).l0Triggers(2, 10, 16).baseLevelBytes(24 * 1024)
                .levelSizeRatio(3).targetFileBytes(8 * 1024).blockSize(512).maxBackgroundJobs(3)
                .parallelCompactionTrigger(0).build();
    }

    @Test
    void onTwoProcessorsASecondCompactionWaitsForADeepLevel0() {
        int processors = Runtime.getRuntime().availableProcessors();
        StoreOptions defaults = StoreOptions.defaults();
        assertEquals(2, defaults.maxBackgroundJobs());
        // On 2 processors a second compaction takes the application's core only once the slowdown
        // has not held level 0: half way from the slowdown trigger (20) to the stop (36).
        assertEquals(processors <= 2 ? 28 : 0, defaults.parallelCompactionTrigger(), processors + " processors");
        assertEquals(7, StoreOptions.builder().parallelCompactionTrigger(7).build().toBuilder().build()
                .parallelCompactionTrigger());
    }

    @Test
    void belowTheParallelTriggerOneCompactionRunsAtATime() throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("BackgroundJobsTest seed " + seed);
        DbBackground background = fillWhileChecking(options().toBuilder().parallelCompactionTrigger(1000).build(), seed);
        assertEquals(1, background.mostRunning(), "one compaction at a time below the trigger");
        assertEquals(0, background.subcompactionsRun(), "no level 0 -> 1 compaction split below the trigger");
    }

    @Test
    void compactionsRunSideBySideWithoutSharingTablesOrRanges() throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("BackgroundJobsTest seed " + seed);
        DbBackground background = fillWhileChecking(options(), seed);
        assertTrue(background.mostRunning() >= 2, "compactions ran side by side");
        assertTrue(background.intraLevel0Started() >= 1, "level 0 was merged while level 0 -> 1 ran");
        assertTrue(background.subcompactionsRun() >= 2, "a level 0 -> 1 compaction was split by key range");
    }

    /**
     * Writers fill a store with {@code options} while a checker samples its running compactions
     * and versions; checks the contents live, after a reopen and by the verifier, and returns the
     * closed store's background counts.
     */
    private DbBackground fillWhileChecking(StoreOptions options, long seed) throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        List<Map<String, String>> models = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger samples = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
        DbImpl store = (DbImpl) Store.open(fs, DIR, options);
        try {
            Future<?> checker = pool.submit(() -> {
                while (!done.get()) {
                    checkRunning(store.background().running());
                    checkVersion(store.currentVersion());
                    samples.incrementAndGet();
                }
                return null;
            });
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                Map<String, String> model = new HashMap<>();
                models.add(model);
                int writer = w;
                writers.add(pool.submit(() -> {
                    Random rnd = new Random(seed + writer);
                    for (int op = 0; op < 6_000; op++) {
                        String key = key(writer, rnd.nextInt(KEYS_PER_WRITER));
                        String value = "w" + writer + "-op" + op + "-" + "v".repeat(rnd.nextInt(40));
                        store.put(b(key), b(value));
                        model.put(key, value);
                    }
                    return null;
                }));
            }
            for (Future<?> f : writers) {
                f.get();
            }
            store.awaitCompactions();
            done.set(true);
            checker.get();
            System.out.printf("BackgroundJobsTest: %d samples, at most %d compactions at once, %d merges inside"
                    + " level 0, %d ranges of split level 0 -> 1 compactions, %d compactions%n", samples.get(),
                    store.background().mostRunning(), store.background().intraLevel0Started(),
                    store.background().subcompactionsRun(), store.stats().compactions());
            assertContents(store, models, "live");
        } finally {
            done.set(true);
            pool.shutdownNow();
            store.close();
        }
        try (Store reopened = Store.open(fs, DIR, options)) {
            assertContents(reopened, models, "reopened");
        }
        VerifyReport report = StoreVerifier.verify(fs, DIR);
        assertTrue(report.clean(), report.problems().toString());
        return store.background();
    }

    @Test
    void aCrashWhileCompactionsRunRecoversAPrefixWithEverySyncedWrite() throws Exception {
        long base = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("BackgroundJobsTest crash base seed " + base);
        for (int round = 0; round < 6; round++) {
            crashOnce(base + round);
        }
    }

    private static void crashOnce(long seed) throws Exception {
        Random rnd = new Random(seed);
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, seed);
        List<String[]> history = new ArrayList<>();
        AtomicInteger lastSynced = new AtomicInteger(-1);
        AtomicBoolean crashed = new AtomicBoolean();
        Store store = Store.open(fs, DIR, options());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<?> writer = pool.submit(() -> {
            Random w = new Random(seed);
            for (int op = 0; !crashed.get(); op++) {
                String key = key(0, w.nextInt(KEYS_PER_WRITER));
                String value = "op" + op + "-" + "v".repeat(w.nextInt(40));
                boolean sync = op % 64 == 63;
                try {
                    store.put(b(key), b(value), sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                } catch (IOException | IllegalStateException e) {
                    return null;
                }
                synchronized (history) {
                    history.add(new String[] {key, value});
                    if (sync) {
                        lastSynced.set(history.size() - 1);
                    }
                }
            }
            return null;
        });
        Thread.sleep(100 + rnd.nextInt(600));
        FaultInjectionFileSystem after;
        synchronized (history) {
            after = fs.crash();
            crashed.set(true);
        }
        writer.get();
        pool.shutdown();
        try {
            store.close();
        } catch (IOException | RuntimeException e) {
            // The crashed view refuses everything: what matters is what reopening finds.
        }
        after.heal();
        String where = "seed " + seed + ", " + history.size() + " writes acknowledged, last synced "
                + lastSynced.get();
        try (Store reopened = Store.open(after, DIR, options())) {
            Map<String, String> recovered = new HashMap<>();
            for (int k = 0; k < KEYS_PER_WRITER; k++) {
                byte[] v = reopened.get(b(key(0, k)));
                if (v != null) {
                    recovered.put(key(0, k), new String(v, StandardCharsets.UTF_8));
                }
            }
            int prefix = longestMatchingPrefix(history, recovered);
            assertTrue(prefix >= 0, where + ": the recovered state is no prefix of the writes");
            assertTrue(prefix > lastSynced.get(), where + ": recovered " + prefix + " writes, a synced one is lost");
        }
        VerifyReport verify = StoreVerifier.verify(after, DIR);
        assertTrue(verify.clean(), where + ": verify: " + verify.errors());
    }

    /**
     * The largest n such that applying the first n writes gives {@code recovered}, or -1: one pass,
     * counting the keys on which the running state and {@code recovered} differ.
     */
    private static int longestMatchingPrefix(List<String[]> history, Map<String, String> recovered) {
        Map<String, String> state = new HashMap<>();
        int differing = recovered.size();
        int best = differing == 0 ? 0 : -1;
        for (int i = 0; i < history.size(); i++) {
            String key = history.get(i)[0];
            boolean before = !Objects.equals(state.get(key), recovered.get(key));
            state.put(key, history.get(i)[1]);
            boolean now = !Objects.equals(state.get(key), recovered.get(key));
            differing += (now ? 1 : 0) - (before ? 1 : 0);
            if (differing == 0) {
                best = i + 1;
            }
        }
        return best;
    }

    private static void checkRunning(List<Compaction> running) {
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < running.size(); i++) {
            Compaction c = running.get(i);
            for (FileMetaData f : c.allInputs()) {
                if (!seen.add(f.fileNumber())) {
                    fail("table " + f.fileNumber() + " is an input of two running compactions: " + running);
                }
            }
            for (int j = 0; j < i; j++) {
                Compaction o = running.get(j);
                if (o.outputLevel() == c.outputLevel() && o.overlaps(c)) {
                    fail("two running compactions write overlapping ranges of level " + c.outputLevel() + ": "
                            + running);
                }
            }
        }
    }

    private static void checkVersion(Version v) {
        List<FileMetaData> level0 = v.files(0);
        for (int i = 1; i < level0.size(); i++) {
            FileMetaData newer = level0.get(i - 1);
            FileMetaData older = level0.get(i);
            if (older.largestSeq() >= newer.smallestSeq()) {
                fail("level-0 tables interleave in sequence numbers: " + older + " below " + newer);
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            List<FileMetaData> files = v.files(level);
            for (int i = 1; i < files.size(); i++) {
                if (Arrays.compareUnsigned(files.get(i - 1).largestKey(), files.get(i).smallestKey()) >= 0) {
                    fail("level " + level + " holds overlapping tables " + files.get(i - 1) + " and " + files.get(i));
                }
            }
        }
    }

    private static void assertContents(Store store, List<Map<String, String>> models, String where)
            throws IOException {
        for (Map<String, String> model : models) {
            for (Map.Entry<String, String> e : model.entrySet()) {
                assertArrayEquals(b(e.getValue()), store.get(b(e.getKey())), where + ": " + e.getKey());
            }
        }
        assertEquals(models.stream().mapToInt(Map::size).sum(), count(store), where + ": no other key");
    }

    private static int count(Store store) throws IOException {
        int n = 0;
        try (var it = store.iterator(null, null)) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    private static String key(int writer, int k) {
        return String.format("w%d-key%05d", writer, k);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
