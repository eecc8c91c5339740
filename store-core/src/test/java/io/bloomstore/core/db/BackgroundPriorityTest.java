package io.bloomstore.core.db;

import static io.bloomstore.core.db.KiBRecords.VALUE_BYTES;
import static io.bloomstore.core.db.KiBRecords.key;
import static io.bloomstore.core.db.KiBRecords.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.internal.CompilerThreads;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flush and compaction threads run {@code backgroundNiceness} nice levels below the process's
 * main thread, on Linux with {@code renice} (the other tests are skipped elsewhere), however many
 * of them start each other; the flush thread only once the JIT compilers have
 * been quiet for a second, the JVM's compiler threads being found by name in {@code /proc}; the
 * application's threads keep their priority; 0 changes nothing; a thread is lowered once however
 * many tasks it runs; and the options refuse values outside 0..19.
 */
class BackgroundPriorityTest {

    private static boolean reniceAvailable() {
        if (!System.getProperty("os.name", "").startsWith("Linux") || !Files.exists(Path.of("/proc/thread-self"))) {
            return false;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "renice"))) {
                return true;
            }
        }
        return false;
    }

    private static int niceOfThisThread() throws IOException {
        return BackgroundPriority.nice(Path.of("/proc/thread-self/stat"));
    }

    private static int niceOfMainThread() throws IOException {
        return BackgroundPriority.nice(Path.of("/proc/self/stat"));
    }

    /** This process's thread ids now: threads of stores other tests left behind are told apart by being here before. */
    private static Set<String> threadIds() throws IOException {
        Set<String> ids = new HashSet<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            tasks.forEach(t -> ids.add(t.getFileName().toString()));
        }
        return ids;
    }

    /**
     * Nice values of this process's threads not in {@code before} whose name (as the kernel keeps
     * it: the first 15 bytes) starts with {@code prefix}.
     */
    private static List<Integer> niceOfThreads(String prefix, Set<String> before) throws IOException {
        List<Integer> nice = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                if (before.contains(task.getFileName().toString())) {
                    continue;
                }
                try {
                    String comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).strip();
                    if (comm.startsWith(prefix)) {
                        nice.add(BackgroundPriority.nice(task.resolve("stat")));
                    }
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return nice;
    }

    @AfterEach
    void forgetTheWatch() {
        BackgroundPriority.resetWarmUp();
    }

    @Test
    void theJitCountsAsSettledAfterASecondWithCompilersUnderAQuarterOfAProcessor() {
        long second = BackgroundPriority.WARM_UP_WINDOW_NANOS;
        long ticksPerSecond = second / CompilerThreads.NANOS_PER_TICK;
        BackgroundPriority.resetWarmUp();
        assertFalse(BackgroundPriority.watch(0, 0), "the first look starts the watch");
        assertFalse(BackgroundPriority.watch(0, second / 2), "half a second is too short to tell");
        assertFalse(BackgroundPriority.watch(ticksPerSecond / 2, second), "compilers busy half the second");
        assertFalse(BackgroundPriority.watch(ticksPerSecond / 2 + ticksPerSecond / 4 + 1, 2 * second),
                "a quarter of a processor and a tick more in the next second");
        assertTrue(BackgroundPriority.watch(ticksPerSecond, 3 * second),
                "a quarter of a processor less a tick in the third second");
        assertTrue(BackgroundPriority.watch(100 * ticksPerSecond, 3 * second + 1), "settled for good");
        BackgroundPriority.resetWarmUp();
        assertTrue(BackgroundPriority.watch(-1, 0), "no compiler thread found: settled at once");
        assertTrue(BackgroundPriority.settled(ticksPerSecond / 4, second));
        assertFalse(BackgroundPriority.settled(ticksPerSecond / 4 + 1, second));
    }

    @Test
    void theFlushThreadKeepsTheApplicationsPriorityUntilTheJitSettles(@TempDir Path dir) throws Exception {
        assumeTrue(reniceAvailable(), "needs Linux and renice");
        int mine = niceOfThisThread();
        int low = niceOfMainThread() + 7;
        assumeTrue(low <= 19, "the process already runs near the lowest priority");
        BackgroundPriority.resetWarmUp();
        AtomicLong ticks = new AtomicLong();
        BackgroundPriority.compilerTicksForTest = ticks::get;
        long second = BackgroundPriority.WARM_UP_WINDOW_NANOS;
        StoreOptions options = StoreOptions.builder().memtableBytes(64 << 10).l0Triggers(30, 30, 36)
                .backgroundNiceness(7).build();
        Set<String> before = threadIds();
        // On disk: each flush's table then has its sidecar checked on the reclaimer's thread, which
        // the flush thread starts at its first flush, at the application's priority.
        try (Store store = Store.open(dir, options)) {
            int perMemtable = (64 << 10) / VALUE_BYTES;
            int next = 0;
            for (int i = 0; i < perMemtable; i++, next++) {
                store.put(key(next), value(next));
            }
            store.flush();
            assertEquals(List.of(mine), niceOfThreads("bloomstore-flus", before), "the first flush starts the watch");
            // The compilers use a whole processor through the next second: still the application's priority.
            Thread.sleep(second / 1_000_000 + 100);
            ticks.addAndGet(2 * second / CompilerThreads.NANOS_PER_TICK);
            for (int i = 0; i < perMemtable; i++, next++) {
                store.put(key(next), value(next));
            }
            store.flush();
            assertEquals(List.of(mine), niceOfThreads("bloomstore-flus", before), "a busy second");
            // The reclaimer checks each new table's sidecar on a thread the flush thread started
            // at the application's priority; it lowered itself on its first task.
            long deadline = System.nanoTime() + 30_000_000_000L;
            List<Integer> reclaimer = niceOfThreads("bloomstore-recl", before);
            while (!reclaimer.equals(List.of(low)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
                reclaimer = niceOfThreads("bloomstore-recl", before);
            }
            assertEquals(List.of(low), reclaimer, "the reclaimer");
            // A quiet second: the next flush lowers its thread.
            Thread.sleep(second / 1_000_000 + 100);
            for (int i = 0; i < perMemtable; i++, next++) {
                store.put(key(next), value(next));
            }
            store.flush();
            assertEquals(List.of(low), niceOfThreads("bloomstore-flus", before), "lowered once the JIT settled");
            assertEquals(mine, niceOfThisThread(), "the writing thread keeps its priority");
        }
    }

    @Test
    void niceIsReadPastACommandNameWithSpacesAndParentheses(@TempDir Path tmp) throws IOException {
        Path stat = tmp.resolve("stat");
        Files.writeString(stat, "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 7 1 0 123 456 789\n");
        assertEquals(7, BackgroundPriority.nice(stat));
        Files.writeString(stat, "4242 (short) S 1 2 3\n");
        assertThrows(IOException.class, () -> BackgroundPriority.nice(stat));
    }

    @Test
    void aThreadIsLoweredOnceByTheGivenLevels() throws Exception {
        assumeTrue(reniceAvailable(), "needs Linux and renice");
        int mine = niceOfThisThread();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                int start = niceOfThisThread();
                int lowered = BackgroundPriority.lowerCurrentThread(3);
                int after = niceOfThisThread();
                int again = BackgroundPriority.lowerCurrentThread(3);
                result.set(List.of(start, lowered, after, again, niceOfThisThread()));
            } catch (Throwable e) {
                result.set(e);
            }
        });
        t.start();
        t.join();
        assertTrue(result.get() instanceof List<?>, String.valueOf(result.get()));
        int start = mine;
        int expected = Math.min(19, niceOfMainThread() + 3);
        assertEquals(List.of(start, expected, expected, Integer.MIN_VALUE, expected), result.get(),
                "start, lowered, after, a second call, after it");
        assertEquals(mine, niceOfThisThread(), "the calling test thread is untouched");
        AtomicInteger zero = new AtomicInteger();
        Thread z = new Thread(() -> {
            try {
                zero.set(BackgroundPriority.lowerCurrentThread(0) == Integer.MIN_VALUE ? niceOfThisThread() : -100);
            } catch (IOException e) {
                zero.set(-200);
            }
        });
        z.start();
        z.join();
        assertEquals(mine, zero.get(), "0 changes nothing");
    }

    @Test
    void aStoresFlushAndCompactionThreadsRunBelowTheApplication() throws Exception {
        assumeTrue(reniceAvailable(), "needs Linux and renice");
        int mine = niceOfThisThread();
        int low = niceOfMainThread() + 7;
        assumeTrue(low <= 19, "the process already runs near the lowest priority");
        StoreOptions options = StoreOptions.builder().memtableBytes(64 << 10).l0Triggers(2, 20, 36)
                .backgroundNiceness(7).build();
        // As in a JVM whose JIT has settled (or that has no compiler threads by HotSpot's names):
        // the flush thread too is lowered at its first task.
        BackgroundPriority.resetWarmUp();
        BackgroundPriority.compilerTicksForTest = () -> -1;
        Set<String> before = threadIds();
        try (Store store = Store.open(new MemoryFileSystem(), Path.of("/nice"), options)) {
            for (int i = 0; i < 6 * (64 << 10) / VALUE_BYTES; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            assertEquals(List.of(low), niceOfThreads("bloomstore-flus", before), "the flush thread");
            // Level 0 is past its trigger of 2: a background compaction starts, and its thread is
            // lowered in the task's first step.
            long deadline = System.nanoTime() + 30_000_000_000L;
            List<Integer> compaction = niceOfThreads("bloomstore-comp", before);
            while ((compaction.isEmpty() || !compaction.stream().allMatch(n -> n == low))
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
                compaction = niceOfThreads("bloomstore-comp", before);
            }
            List<Integer> seen = compaction;
            assertTrue(!seen.isEmpty() && seen.stream().allMatch(n -> n == low), "compaction threads: " + seen);
            assertEquals(mine, niceOfThisThread(), "the writing thread keeps its priority");
        }
    }

    @Test
    void zeroLeavesTheStoresThreadsAlone() throws Exception {
        assumeTrue(reniceAvailable(), "needs Linux and renice");
        int mine = niceOfThisThread();
        StoreOptions options = StoreOptions.builder().memtableBytes(64 << 10).backgroundNiceness(0).build();
        Set<String> before = threadIds();
        try (Store store = Store.open(new MemoryFileSystem(), Path.of("/not-nice"), options)) {
            for (int i = 0; i < 2 * (64 << 10) / VALUE_BYTES; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            assertEquals(List.of(mine), niceOfThreads("bloomstore-flus", before));
        }
    }

    @Test
    void optionsRefuseNicenessOutsideZeroToNineteen() {
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().backgroundNiceness(-1).build());
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().backgroundNiceness(20).build());
        assertEquals(19, StoreOptions.builder().backgroundNiceness(19).build().backgroundNiceness());
        assertEquals(10, StoreOptions.builder().build().backgroundNiceness());
    }

    @Test
    void theSystemPropertySetsTheDefaultAndABadOneIsRefused() {
        String key = StoreOptions.BACKGROUND_NICENESS_PROPERTY;
        String old = System.getProperty(key);
        try {
            System.setProperty(key, "0");
            assertEquals(0, StoreOptions.builder().build().backgroundNiceness());
            assertEquals(5, StoreOptions.builder().backgroundNiceness(5).build().backgroundNiceness(), "the option wins");
            System.setProperty(key, "25");
            IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                    () -> StoreOptions.builder().build());
            assertTrue(range.getMessage().contains("between 0 and 19: 25"), range.getMessage());
            System.setProperty(key, "low");
            IllegalArgumentException word = assertThrows(IllegalArgumentException.class, StoreOptions::builder);
            assertTrue(word.getMessage().contains("-Dbloomstore.backgroundNiceness") && word.getMessage().contains("'low'"),
                    word.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, old);
            }
        }
    }
}
