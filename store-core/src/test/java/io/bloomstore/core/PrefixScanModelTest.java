package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model test of prefix-filtered scans: random puts and deletes of keys with a prefix structure
 * (only some prefixes ever used, so most scanned prefixes are missing from most tables), flushes,
 * compactions and reopens, with {@link Store#prefixIterator} and prefix-confined
 * {@link Store#iterator}/{@link Store#reverseIterator} scans checked against a {@link TreeMap}
 * after every step. A table wrongly skipped (a prefix filter false negative, or a range wrongly
 * judged to be one prefix) loses keys the model has, and fails. The test also requires the
 * filters to have skipped tables, so it cannot pass by never using them. A failure names the
 * seed; replay with {@code -Dbloomstore.seed=N}.
 */
class PrefixScanModelTest {
    private static final int OPERATIONS = 2000;

    @TempDir
    Path tmp;

    static Stream<Arguments> cases() {
        StoreOptions compacting = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).l0Triggers(2, 3, 4)
                .baseLevelBytes(8 * 1024).levelSizeRatio(2).targetFileBytes(4 * 1024).build();
        PrefixExtractor fixed = PrefixExtractor.fixed(4);
        PrefixExtractor slash = PrefixExtractor.upTo((byte) '/');
        List<Arguments> args = new ArrayList<>();
        // The in-memory file system loads sidecars; the local one maps them (and syncs, so slower).
        args.add(Arguments.of("fixed(4), bloom", compacting.toBuilder().prefixExtractor(fixed).build(), false));
        args.add(Arguments.of("upTo('/'), blocked bloom", compacting.toBuilder().prefixExtractor(slash)
                .filterKind(FilterKind.BLOCKED_BLOOM).build(), false));
        args.add(Arguments.of("fixed(4), binary fuse, no cache", compacting.toBuilder().prefixExtractor(fixed)
                .filterKind(FilterKind.BINARY_FUSE).blockCacheBytes(0).build(), false));
        args.add(Arguments.of("upTo('/'), monkey", compacting.toBuilder().prefixExtractor(slash)
                .filterPolicy(FilterPolicy.monkey(FilterKind.BLOOM, 10)).build(), false));
        args.add(Arguments.of("fixed(4), range filter 12 bits", compacting.toBuilder().prefixExtractor(fixed)
                .rangeFilter(RangeFilterOptions.of(12)).build(), false));
        // Keys like "u12/5": a range just past one differs from it in byte 5, so spans up to 5·2^16.
        args.add(Arguments.of("upTo('/'), range filter 24 bits, L=2^20", compacting.toBuilder().prefixExtractor(slash)
                .rangeFilter(new RangeFilterOptions(24, 20)).build(), false));
        args.add(Arguments.of("fixed(4), bloom", compacting.toBuilder().prefixExtractor(fixed).build(), true));
        args.add(Arguments.of("upTo('/'), blocked bloom, range filter", compacting.toBuilder().prefixExtractor(slash)
                .filterKind(FilterKind.BLOCKED_BLOOM).rangeFilter(RangeFilterOptions.of(16)).build(), true));
        return args.stream();
    }

    @ParameterizedTest(name = "{0}, local={2}")
    @MethodSource("cases")
    void prefixAndRangeScansMatchTreeMap(String name, StoreOptions options, boolean local) throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("PrefixScanModelTest '" + name + "' local=" + local + " seed " + seed);
        try {
            run(new Random(seed), options, local);
        } catch (Throwable t) {
            throw new AssertionError("prefix model test '" + name + "' (local=" + local + ") failed with seed " + seed
                    + "; replay with -Dbloomstore.seed=" + seed, t);
        }
    }

    /** A key under user prefix number {@code p}: {@code P%03d-...} (fixed) or {@code u%d/...} (delimiter). */
    private static byte[] key(boolean fixed, int p, int suffix, Random rnd) {
        if (fixed) {
            return String.format("P%03d-%d", p, suffix).getBytes(StandardCharsets.ISO_8859_1);
        }
        // Some keys lack the delimiter: they are their own prefix.
        return (rnd.nextInt(20) == 0 ? "u" + p : "u" + p + "/" + suffix).getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] prefix(boolean fixed, int p) {
        return (fixed ? String.format("P%03d", p) : "u" + p + "/").getBytes(StandardCharsets.ISO_8859_1);
    }

    private void run(Random rnd, StoreOptions options, boolean local) throws Exception {
        boolean fixed = options.prefixExtractor().equals(PrefixExtractor.fixed(4));
        FileSystem fs = local ? LocalFileSystem.INSTANCE : new MemoryFileSystem();
        Path dir = local ? tmp.resolve("store") : Path.of("/prefix-model/store");
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        Store store = Store.open(fs, dir, options);
        long skipped = 0;
        long rangeSkipped = 0;
        try {
            for (int op = 0; op < OPERATIONS; op++) {
                // Prefixes 0..199; only the even ones below 120 are written, so scans of the
                // others (and of most even ones, in most tables) find nothing.
                int used = 2 * rnd.nextInt(60);
                int r = rnd.nextInt(100);
                if (r < 55) {
                    byte[] k = key(fixed, used, rnd.nextInt(40), rnd);
                    byte[] v = ("v" + op).getBytes(StandardCharsets.UTF_8);
                    store.put(k, v);
                    model.put(k, v);
                } else if (r < 62) {
                    byte[] k = key(fixed, used, rnd.nextInt(40), rnd);
                    store.delete(k);
                    model.remove(k);
                } else if (r < 90) {
                    checkScan(store, model, rnd, fixed);
                } else if (r < 96) {
                    store.flush();
                } else if (r < 98) {
                    store.compact();
                } else {
                    skipped += store.stats().prefixUseful();
                    rangeSkipped += store.stats().rangeUseful();
                    store.close();
                    store = Store.open(fs, dir, options);
                }
            }
            for (int p = 0; p < 200; p++) {
                byte[] pre = prefix(fixed, p);
                assertScan(model.subMap(pre, true, end(pre), false), store.prefixIterator(pre), "prefix " + p);
            }
            StoreStats s = store.stats();
            skipped += s.prefixUseful();
            assertTrue(skipped > 0, "prefix filters never skipped a table: the test would not catch a wrong skip");
            if (options.rangeFilter() != null) {
                assertTrue(rangeSkipped + s.rangeUseful() > 0, "range filters never skipped a table");
                assertEquals(s.rangeUseful(), s.levels().stream().mapToLong(StoreStats.LevelStats::rangeUseful).sum());
            }
            long levelUseful = s.levels().stream().mapToLong(StoreStats.LevelStats::prefixUseful).sum();
            assertEquals(s.prefixUseful(), levelUseful, "per-level prefix negatives add up to the total");
            assertTrue(s.prefixChecked() >= s.prefixUseful());
        } finally {
            store.close();
        }
    }

    private static byte[] end(byte[] prefix) {
        return PrefixExtractor.successor(prefix);
    }

    private static void checkScan(Store store, NavigableMap<byte[], byte[]> model, Random rnd, boolean fixed) {
        int p = rnd.nextInt(200);
        byte[] pre = prefix(fixed, p);
        switch (rnd.nextInt(5)) {
            case 0, 1 -> assertScan(model.subMap(pre, true, end(pre), false), store.prefixIterator(pre),
                    "prefixIterator " + new String(pre, StandardCharsets.ISO_8859_1));
            case 2 -> {
                // A range inside one prefix: [pre + a, pre + b).
                byte[] from = concat(pre, rnd.nextInt(40));
                byte[] to = concat(pre, rnd.nextInt(40));
                if (Arrays.compareUnsigned(from, to) > 0) {
                    byte[] t = from;
                    from = to;
                    to = t;
                }
                assertScan(model.subMap(from, true, to, false), store.iterator(from, to),
                        "range in one prefix");
            }
            case 3 -> assertScan(model.subMap(pre, true, end(pre), false).descendingMap(),
                    store.reverseIterator(pre, end(pre)), "reverse prefix scan");
            default -> {
                // A range spanning prefixes (never filtered) and a short, unconfined prefix.
                byte[] other = prefix(fixed, rnd.nextInt(200));
                byte[] from = Arrays.compareUnsigned(pre, other) <= 0 ? pre : other;
                byte[] to = from == pre ? other : pre;
                assertScan(model.subMap(from, true, to, false), store.iterator(from, to), "range across prefixes");
                byte[] shortPrefix = Arrays.copyOf(pre, 2);
                assertScan(model.subMap(shortPrefix, true, end(shortPrefix), false),
                        store.prefixIterator(shortPrefix), "short prefix");
                // Short ranges at and just past a stored key (the correlated case of range filters).
                byte[] k = model.ceilingKey(pre);
                if (k != null) {
                    byte[] past = Arrays.copyOf(k, k.length + 1);
                    byte[] upTo = past.clone();
                    upTo[k.length] = (byte) (1 + rnd.nextInt(5));
                    assertScan(model.subMap(past, true, upTo, false), store.iterator(past, upTo), "just past a key");
                    assertScan(model.subMap(k, true, upTo, false), store.iterator(k, upTo), "at a key");
                    assertScan(model.subMap(k, true, upTo, false).descendingMap(), store.reverseIterator(k, upTo),
                            "at a key, reverse");
                }
            }
        }
    }

    private static byte[] concat(byte[] prefix, int suffix) {
        byte[] s = String.valueOf(suffix).getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = Arrays.copyOf(prefix, prefix.length + s.length);
        System.arraycopy(s, 0, out, prefix.length, s.length);
        return out;
    }

    private static void assertScan(Map<byte[], byte[]> expected, StoreIterator it, String what) {
        try (it) {
            for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
                assertTrue(it.hasNext(), what + ": store ends before model key "
                        + new String(e.getKey(), StandardCharsets.ISO_8859_1));
                KeyValue kv = it.next();
                assertArrayEquals(e.getKey(), kv.key(), what);
                assertArrayEquals(e.getValue(), kv.value(), what);
            }
            assertTrue(!it.hasNext(), what + ": store has keys the model does not");
        }
    }
}
