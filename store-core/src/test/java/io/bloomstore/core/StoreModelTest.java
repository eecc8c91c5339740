package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
 * Metamorphic test: thousands of random puts, deletes, gets, forward and reverse scans, batches,
 * flushes, compactions, snapshots (short ones, and one held across many operations while
 * background compactions replace the tables beneath it) and reopens, checked against a
 * {@link TreeMap} with unsigned key order, under several option sets and on both file systems.
 * The "compacting" set uses tiny levels so background compactions run all the time. A failure
 * names the seed; rerun with {@code -Dbloomstore.seed=N} to replay it.
 */
class StoreModelTest {
    private static final int OPERATIONS = 2000;

    @TempDir
    Path tmp;

    static Stream<Arguments> optionSets() {
        StoreOptions tiny = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).build();
        StoreOptions uncompressed = StoreOptions.builder().memtableBytes(16 * 1024).compression(Compression.NONE)
                .build();
        StoreOptions blocked = StoreOptions.builder().memtableBytes(8 * 1024).filterKind(FilterKind.BLOCKED_BLOOM)
                .blockCacheBytes(0).build();
        StoreOptions noFilter = StoreOptions.builder().memtableBytes(8 * 1024).filterKind(null).build();
        StoreOptions standard = StoreOptions.defaults();
        StoreOptions compacting = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).l0Triggers(2, 3, 4)
                .baseLevelBytes(8 * 1024).levelSizeRatio(2).targetFileBytes(4 * 1024).build();
        StoreOptions monkeyFuse = compacting.toBuilder().filterPolicy(
                FilterPolicy.monkey(FilterKind.BINARY_FUSE, 10).optimizeForHits()).build();
        List<Arguments> args = new ArrayList<>();
        for (boolean local : new boolean[] {false, true}) {
            args.add(Arguments.of("tiny memtable", tiny, local));
            args.add(Arguments.of("no compression", uncompressed, local));
            args.add(Arguments.of("blocked bloom, no cache", blocked, local));
            args.add(Arguments.of("no filter", noFilter, local));
            args.add(Arguments.of("defaults", standard, local));
            args.add(Arguments.of("compacting", compacting, local));
            args.add(Arguments.of("compacting, monkey fuse filters", monkeyFuse, local));
            if (local) {
                // Direct reads (O_DIRECT where the file system allows it) and a bound of ten open
                // table files, so descriptors are evicted and reopened all the time.
                args.add(Arguments.of("compacting, direct reads, 20 open files", compacting.toBuilder()
                        .directReads(true).maxOpenFiles(StoreOptions.MIN_MAX_OPEN_FILES).build(), true));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0}, local={2}")
    @MethodSource("optionSets")
    void randomOperationsMatchTreeMap(String name, StoreOptions options, boolean local) throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        try {
            run(seed, options, local);
        } catch (Throwable t) {
            throw new AssertionError("model test '" + name + "' (local=" + local + ") failed with seed " + seed
                    + "; replay with -Dbloomstore.seed=" + seed, t);
        }
    }

    private void run(long seed, StoreOptions options, boolean local) throws Exception {
        Random rnd = new Random(seed);
        FileSystem fs = local ? LocalFileSystem.INSTANCE : new MemoryFileSystem();
        Path dir = local ? tmp.resolve("store") : Path.of("/model/store");
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        Store store = Store.open(fs, dir, options);
        Snapshot held = null;
        List<String> heldState = null;
        try {
            for (int op = 0; op < OPERATIONS; op++) {
                if (op % 300 == 0) {
                    // A snapshot held across many operations, checked whole before the next one.
                    if (held != null) {
                        assertEquals(heldState, toList(store, held), "scan at a snapshot held since op " + (op - 300));
                        held.close();
                    }
                    held = store.snapshot();
                    heldState = toList(model.entrySet());
                }
                int choice = rnd.nextInt(100);
                if (choice < 40) {
                    byte[] k = key(rnd);
                    byte[] v = value(rnd);
                    store.put(k, v);
                    model.put(k, v);
                } else if (choice < 50) {
                    byte[] k = key(rnd);
                    store.delete(k);
                    model.remove(k);
                } else if (choice < 70) {
                    byte[] k = key(rnd);
                    byte[] expected = model.get(k);
                    byte[] actual = store.get(k);
                    if (expected == null) {
                        assertEquals(null, actual, "get " + str(k));
                    } else {
                        assertArrayEquals(expected, actual, "get " + str(k));
                    }
                } else if (choice < 80) {
                    checkScan(store, model, rnd, rnd.nextBoolean());
                } else if (choice < 88) {
                    WriteBatch batch = new WriteBatch();
                    int n = 1 + rnd.nextInt(20);
                    for (int i = 0; i < n; i++) {
                        byte[] k = key(rnd);
                        if (rnd.nextInt(4) == 0) {
                            batch.delete(k);
                            model.remove(k);
                        } else {
                            byte[] v = value(rnd);
                            batch.put(k, v);
                            model.put(k, v);
                        }
                    }
                    store.write(batch, rnd.nextInt(10) == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                } else if (choice < 92) {
                    checkSnapshot(store, model, rnd);
                } else if (choice < 93) {
                    store.flush();
                } else if (choice < 94) {
                    store.compact();
                } else if (choice < 95) {
                    if (held != null) {
                        held.close();
                        held = null;
                    }
                    store.close();
                    store = Store.open(fs, dir, options);
                } else {
                    checkScan(store, model, rnd, false);
                    checkScan(store, model, rnd, true);
                }
            }
            if (held != null) {
                assertEquals(heldState, toList(store, held), "scan at the last held snapshot");
                held.close();
            }
            store.close();
            store = Store.open(fs, dir, options);
            assertEquals(toList(model.entrySet()), toList(store, null, null, false));
        } finally {
            store.close();
        }
    }

    /** A snapshot keeps seeing the old state while new writes land. */
    private static void checkSnapshot(Store store, NavigableMap<byte[], byte[]> model, Random rnd) throws Exception {
        List<String> before = toList(model.entrySet());
        try (Snapshot s = store.snapshot()) {
            byte[] k = key(rnd);
            store.put(k, value(rnd));
            store.delete(key(rnd));
            try (StoreIterator it = store.iterator(null, null, ReadOptions.at(s))) {
                List<String> seen = new ArrayList<>();
                it.forEachRemaining(kv -> seen.add(str(kv.key()) + "=" + str(kv.value())));
                assertEquals(before, seen, "iterator at snapshot");
            }
            byte[] old = model.get(k);
            byte[] atSnapshot = store.get(k, ReadOptions.at(s));
            assertEquals(old == null ? null : str(old), atSnapshot == null ? null : str(atSnapshot));
        }
        // Bring the model up to date with what the snapshot check wrote.
        model.clear();
        try (StoreIterator it = store.iterator(null, null)) {
            it.forEachRemaining(kv -> model.put(kv.key(), kv.value()));
        }
    }

    private static void checkScan(Store store, NavigableMap<byte[], byte[]> model, Random rnd, boolean reverse) {
        byte[] from = rnd.nextInt(4) == 0 ? null : key(rnd);
        byte[] to = rnd.nextInt(4) == 0 ? null : key(rnd);
        if (from != null && to != null && Arrays.compareUnsigned(from, to) > 0) {
            byte[] t = from;
            from = to;
            to = t;
        }
        NavigableMap<byte[], byte[]> range = model;
        if (from != null) {
            range = range.tailMap(from, true);
        }
        if (to != null) {
            range = range.headMap(to, false);
        }
        List<String> expected = toList((reverse ? range.descendingMap() : range).entrySet());
        int limit = rnd.nextInt(3) == 0 ? 5 : Integer.MAX_VALUE;
        List<String> actual = new ArrayList<>();
        try (StoreIterator it = reverse ? store.reverseIterator(from, to) : store.iterator(from, to)) {
            while (it.hasNext() && actual.size() < limit) {
                KeyValue kv = it.next();
                actual.add(str(kv.key()) + "=" + str(kv.value()));
            }
        }
        assertEquals(expected.subList(0, Math.min(limit, expected.size())), actual,
                (reverse ? "reverse " : "") + "scan [" + (from == null ? "-" : str(from)) + ", "
                        + (to == null ? "-" : str(to)) + ")");
    }

    private static List<String> toList(Store store, byte[] from, byte[] to, boolean reverse) {
        List<String> out = new ArrayList<>();
        try (StoreIterator it = reverse ? store.reverseIterator(from, to) : store.iterator(from, to)) {
            it.forEachRemaining(kv -> out.add(str(kv.key()) + "=" + str(kv.value())));
        }
        assertFalse(out.isEmpty() && out.size() != out.stream().distinct().count(), "duplicate keys");
        return out;
    }

    private static List<String> toList(Store store, Snapshot snapshot) {
        List<String> out = new ArrayList<>();
        try (StoreIterator it = store.iterator(null, null, ReadOptions.at(snapshot))) {
            it.forEachRemaining(kv -> out.add(str(kv.key()) + "=" + str(kv.value())));
        }
        return out;
    }

    private static List<String> toList(Iterable<Map.Entry<byte[], byte[]>> entries) {
        List<String> out = new ArrayList<>();
        entries.forEach(e -> out.add(str(e.getKey()) + "=" + str(e.getValue())));
        return out;
    }

    /** Keys from a small space so overwrites and deletes hit; a few start with a high byte. */
    private static byte[] key(Random rnd) {
        int n = rnd.nextInt(600);
        String s = String.format("k%04d", n);
        byte[] k = s.getBytes(StandardCharsets.UTF_8);
        if (n % 50 == 0) {
            k[0] = (byte) 0xf0;
        }
        return k;
    }

    private static byte[] value(Random rnd) {
        int len = rnd.nextInt(20) == 0 ? 2000 + rnd.nextInt(3000) : rnd.nextInt(60);
        byte[] v = new byte[len];
        for (int i = 0; i < len; i++) {
            v[i] = (byte) ('a' + rnd.nextInt(26));
        }
        return v;
    }

    private static String str(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(x >= 32 && x < 127 ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xff));
        }
        return sb.toString();
    }

}
