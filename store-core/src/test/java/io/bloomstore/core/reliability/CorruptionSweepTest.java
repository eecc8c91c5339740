package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FormatVersionException;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage to every kind of file of a real store (tables' data, properties and index blocks and
 * footer, filter sidecars, WAL, MANIFEST, CURRENT): a byte flipped at many positions, and
 * truncation. Each damaged copy is opened and read whole (every key, absent keys in every table's
 * range so each filter answers "absent", a forward and a reverse scan) under a timeout. The outcome
 * must be a {@link CorruptionException} (or {@link FormatVersionException} for a damaged version
 * field) naming the damaged file, or, for the newest WAL segment's last record only, that record
 * dropped whole and nothing else; never a wrong value, a hang or an unchecked exception.
 * {@link StoreVerifier} must report every damage that open and reads report. The WAL has three
 * unflushed segments (the flush thread held back by the fault-injecting file system while they
 * were written), so damage to an older segment, whose loss would leave a hole, is swept too.
 * Positions are seeded; the seed is printed.
 */
class CorruptionSweepTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(16 * 1024).blockSize(512)
            .blockCacheBytes(0).build();
    private static final int TABLE_KEYS = 900;
    private static final int WAL_KEYS = 40;

    @TempDir
    static Path pristineRoot;
    static Path pristine;
    static TreeMap<String, String> model = new TreeMap<>();

    @TempDir
    Path work;

    @BeforeAll
    static void buildStore() throws IOException {
        pristine = pristineRoot.resolve("store");
        try (Store store = Store.open(pristine, OPTIONS)) {
            for (int i = 0; i < TABLE_KEYS; i++) {
                put(store, String.format("t%05d", i * 2), "value-" + i + "-" + "v".repeat(i % 40));
            }
            store.flush();
        }
        // About 1 KiB per WAL record and 16 KiB memtables: three segments, none flushed while the
        // table creation of the flush thread is held; a machine crash then keeps what was synced.
        CountDownLatch release = new CountDownLatch(1);
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 1).beforeCreate(p -> {
            if (p.toString().endsWith(".sst")) {
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Store store = Store.open(fs, pristine, OPTIONS);
        for (int i = 0; i < WAL_KEYS; i++) {
            String key = String.format("w%03d", i);
            String value = "wal-" + i + "-" + "w".repeat(1000);
            store.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), WriteOptions.SYNC);
            model.put(key, value);
        }
        fs.crash();
        release.countDown();
        // The second open deleted the first one's segment (it replayed to nothing): three.
        assertEquals(3, files(p -> p.toString().endsWith(".log")).size(), "three unflushed WAL segments");
    }

    private static void put(Store store, String key, String value) throws IOException {
        store.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
        model.put(key, value);
    }

    @Test
    void flippedBytesInEveryKindOfFile() throws IOException {
        sweep(12);
    }

    @Test
    @Tag("stress")
    void flippedBytesEverywhere() throws IOException {
        sweep(400);
    }

    private void sweep(int perFile) throws IOException {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("CorruptionSweepTest seed " + seed);
        Random rnd = new Random(seed);
        int trials = 0;
        int detected = 0;
        for (Path file : files(p -> true)) {
            String name = file.getFileName().toString();
            if (name.equals("LOCK")) {
                continue;
            }
            int size = (int) Files.size(file);
            List<Integer> positions = new ArrayList<>();
            // The footer and the first and last bytes of each file, then seeded positions.
            for (int i = Math.max(0, size - 48); i < size; i += 5) {
                positions.add(i);
            }
            positions.add(0);
            for (int i = 0; i < perFile; i++) {
                positions.add(rnd.nextInt(size));
            }
            for (int pos : positions) {
                byte[] bytes = Files.readAllBytes(file);
                bytes[pos] ^= (byte) (1 + rnd.nextInt(255));
                detected += trial(name, bytes, "flip at " + pos + " (seed " + seed + ")") ? 1 : 0;
                trials++;
            }
            for (int length : new int[] {0, size / 2, size - 1}) {
                byte[] bytes = Arrays.copyOf(Files.readAllBytes(file), length);
                detected += trial(name, bytes, "truncated to " + length) ? 1 : 0;
                trials++;
            }
        }
        System.out.println("CorruptionSweepTest: " + trials + " damaged copies, " + detected
                + " reported as corruption, the rest lost only the WAL's torn last record; no wrong value");
    }

    /** Opens and reads a copy of the store with {@code name} replaced; true when damage was reported. */
    private boolean trial(String name, byte[] damaged, String what) throws IOException {
        Path dir = Files.createTempDirectory(work, "trial");
        try (Stream<Path> s = Files.list(pristine)) {
            for (Path p : s.toList()) {
                Files.copy(p, dir.resolve(p.getFileName()));
            }
        }
        Path file = dir.resolve(name);
        Files.write(file, damaged);
        String where = name + ", " + what;
        boolean reported = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> openAndReadAll(dir, file, where),
                where + ": hangs");
        if (reported) {
            VerifyReport r = StoreVerifier.verify(dir);
            assertTrue(!r.clean(), where + ": open reports damage but verify does not");
        }
        return reported;
    }

    private static boolean openAndReadAll(Path dir, Path damaged, String where) {
        try (Store store = Store.open(dir, OPTIONS)) {
            Map<String, String> seen = new TreeMap<>();
            for (Map.Entry<String, String> e : model.entrySet()) {
                byte[] v = store.get(e.getKey().getBytes(StandardCharsets.UTF_8));
                if (v != null) {
                    assertEquals(e.getValue(), new String(v, StandardCharsets.UTF_8), where + ": wrong value");
                    seen.put(e.getKey(), e.getValue());
                }
            }
            for (int i = 0; i < TABLE_KEYS; i += 7) {
                assertEquals(null, store.get(String.format("t%05d", i * 2 + 1).getBytes(StandardCharsets.UTF_8)),
                        where + ": a key never written");
            }
            checkScan(store, seen, false, where);
            checkScan(store, seen, true, where);
            checkOnlyTheWalTailIsMissing(seen, damaged, where);
            return false;
        } catch (CorruptionException e) {
            if (isWal(damaged) && e.getMessage().contains("sequence gap")) {
                // A segment cut back to no records shows as a gap where the next segment starts.
                assertTrue(isWal(e.file()) && e.file().getFileName().compareTo(damaged.getFileName()) > 0,
                        where + ": " + e.getMessage());
                return true;
            }
            assertEquals(damaged.getFileName(), e.file().getFileName(), where + ": " + e.getMessage());
            assertTrue(e.offset() >= 0, where + ": " + e.getMessage());
            return true;
        } catch (FormatVersionException e) {
            assertEquals(damaged.getFileName(), e.file().getFileName(), where + ": " + e.getMessage());
            return true;
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof CorruptionException c) {
                assertEquals(damaged.getFileName(), c.file().getFileName(), where + ": " + c.getMessage());
                return true;
            }
            throw new AssertionError(where + ": " + e, e);
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(where + ": not reported as corruption: " + e, e);
        }
    }

    private static void checkScan(Store store, Map<String, String> seen, boolean reverse, String where) {
        List<String> keys = new ArrayList<>();
        try (StoreIterator it = reverse ? store.reverseIterator(null, null) : store.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                String k = new String(kv.key(), StandardCharsets.UTF_8);
                assertArrayEquals(seen.get(k) == null ? null : seen.get(k).getBytes(StandardCharsets.UTF_8), kv.value(),
                        where + ": scan value of " + k);
                keys.add(k);
            }
        }
        List<String> expected = new ArrayList<>(seen.keySet());
        if (reverse) {
            java.util.Collections.reverse(expected);
        }
        assertEquals(expected, keys, where + ": scan");
    }

    /** Nothing was reported: the store must be whole, or miss exactly the WAL's last record. */
    private static void checkOnlyTheWalTailIsMissing(Map<String, String> seen, Path damaged, String where) {
        Map<String, String> missing = new TreeMap<>(model);
        missing.keySet().removeAll(seen.keySet());
        if (missing.isEmpty()) {
            return;
        }
        if (!damaged.getFileName().equals(newestWal(pristine).getFileName())) {
            fail(where + ": silently lost " + missing.size() + " keys, first " + missing.keySet().iterator().next());
        }
        // Each record is one put of a w-key, written in order: what is left must be a prefix, and a
        // flipped byte (the file's length unchanged) may cost only the last record.
        List<String> lost = List.copyOf(missing.keySet());
        int first = WAL_KEYS - lost.size();
        for (int i = 0; i < lost.size(); i++) {
            assertEquals(String.format("w%03d", first + i), lost.get(i), where + ": a hole in the WAL's records");
        }
        assertTrue(where.contains("truncated") || lost.size() == 1, where + ": lost " + lost
                + ", more than the torn last record");
    }

    private static boolean isWal(Path p) {
        return p.getFileName().toString().endsWith(".log");
    }

    private static Path newestWal(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".log")).max(Path::compareTo).orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> files(Predicate<Path> which) throws IOException {
        try (Stream<Path> s = Files.list(pristine)) {
            return s.filter(which).sorted().toList();
        }
    }
}
