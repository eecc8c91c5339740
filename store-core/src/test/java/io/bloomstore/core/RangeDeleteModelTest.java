package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * Metamorphic test of range deletion: random puts, deletes, range deletions (alone and inside
 * batches), gets, forward and reverse scans, flushes, compactions, snapshots (up to three held at
 * once across many operations, each checked against its own copy of the model, by get and by scan
 * both ways) and reopens, against a {@link TreeMap} with unsigned key order, under option sets that
 * keep background compactions and whole-table drops busy. A failure names the seed; replay with
 * {@code -Dbloomstore.seed=N}.
 */
class RangeDeleteModelTest {
    private static final int OPERATIONS = 1500;
    private static final int KEYS = 400;

    @TempDir
    Path tmp;

    static Stream<Arguments> optionSets() {
        StoreOptions tiny = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).build();
        StoreOptions compacting = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).l0Triggers(2, 3, 4)
                .baseLevelBytes(8 * 1024).levelSizeRatio(2).targetFileBytes(2 * 1024).build();
        StoreOptions manual = StoreOptions.builder().memtableBytes(2 * 1024).autoCompaction(false).build();
        return Stream.of(Arguments.of("tiny memtable", tiny, false), Arguments.of("compacting", compacting, false),
                Arguments.of("manual compaction", manual, false), Arguments.of("compacting", compacting, true));
    }

    @ParameterizedTest(name = "{0}, local={2}")
    @MethodSource("optionSets")
    void randomOperationsMatchTreeMap(String name, StoreOptions options, boolean local) throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("RangeDeleteModelTest '" + name + "' local=" + local + " seed " + seed);
        try {
            run(seed, options, local);
        } catch (Throwable t) {
            throw new AssertionError("range deletion model test '" + name + "' (local=" + local + ") failed with seed "
                    + seed + "; replay with -Dbloomstore.seed=" + seed, t);
        }
    }

    private record Held(Snapshot snapshot, NavigableMap<byte[], byte[]> state, int since) {
    }

    private static NavigableMap<byte[], byte[]> newModel() {
        return new TreeMap<>(Arrays::compareUnsigned);
    }

    private void run(long seed, StoreOptions options, boolean local) throws Exception {
        Random rnd = new Random(seed);
        FileSystem fs = local ? LocalFileSystem.INSTANCE : new MemoryFileSystem();
        Path dir = local ? tmp.resolve("store") : Path.of("/model/store");
        NavigableMap<byte[], byte[]> model = newModel();
        List<Held> held = new ArrayList<>();
        Store store = Store.open(fs, dir, options);
        try {
            for (int op = 0; op < OPERATIONS; op++) {
                int choice = rnd.nextInt(100);
                if (choice < 35) {
                    byte[] k = key(rnd);
                    byte[] v = value(rnd);
                    store.put(k, v);
                    model.put(k, v);
                } else if (choice < 40) {
                    byte[] k = key(rnd);
                    store.delete(k);
                    model.remove(k);
                } else if (choice < 46) {
                    byte[][] range = range(rnd);
                    store.deleteRange(range[0], range[1]);
                    model.subMap(range[0], true, range[1], false).clear();
                } else if (choice < 60) {
                    byte[] k = key(rnd);
                    assertEquals(str(model.get(k)), str(store.get(k)), "get " + str(k) + " at op " + op);
                } else if (choice < 70) {
                    checkScan(store, null, model, rnd, rnd.nextBoolean(), op);
                } else if (choice < 76) {
                    WriteBatch batch = new WriteBatch();
                    int n = 1 + rnd.nextInt(10);
                    for (int i = 0; i < n; i++) {
                        int kind = rnd.nextInt(6);
                        if (kind == 0) {
                            byte[][] range = range(rnd);
                            batch.deleteRange(range[0], range[1]);
                            model.subMap(range[0], true, range[1], false).clear();
                        } else if (kind == 1) {
                            byte[] k = key(rnd);
                            batch.delete(k);
                            model.remove(k);
                        } else {
                            byte[] k = key(rnd);
                            byte[] v = value(rnd);
                            batch.put(k, v);
                            model.put(k, v);
                        }
                    }
                    store.write(batch, rnd.nextInt(10) == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                } else if (choice < 80) {
                    if (held.size() < 3) {
                        NavigableMap<byte[], byte[]> copy = newModel();
                        copy.putAll(model);
                        held.add(new Held(store.snapshot(), copy, op));
                    } else {
                        Held h = held.remove(rnd.nextInt(held.size()));
                        checkHeld(store, h, rnd, op);
                        h.snapshot().close();
                    }
                } else if (choice < 86) {
                    if (!held.isEmpty()) {
                        checkHeld(store, held.get(rnd.nextInt(held.size())), rnd, op);
                    }
                } else if (choice < 90) {
                    store.flush();
                } else if (choice < 92) {
                    store.compact();
                } else if (choice < 94) {
                    store.awaitCompactions();
                } else if (choice < 95) {
                    for (Held h : held) {
                        checkHeld(store, h, rnd, op);
                        h.snapshot().close();
                    }
                    held.clear();
                    store.close();
                    store = Store.open(fs, dir, options);
                } else {
                    checkScan(store, null, model, rnd, false, op);
                    checkScan(store, null, model, rnd, true, op);
                }
            }
            for (Held h : held) {
                checkHeld(store, h, rnd, OPERATIONS);
                h.snapshot().close();
            }
            store.compact();
            assertEquals(toList(model.entrySet()), scan(store, null, null, null, false), "after the last compaction");
            store.close();
            store = Store.open(fs, dir, options);
            assertEquals(toList(model.entrySet()), scan(store, null, null, null, false), "after the last reopen");
            assertEquals(0, store.stats().rangeTombstones(), "compact() with no snapshot leaves no range tombstone");
        } finally {
            store.close();
        }
    }

    private static void checkHeld(Store store, Held h, Random rnd, int op) throws Exception {
        String what = "snapshot taken at op " + h.since() + ", checked at op " + op;
        for (int i = 0; i < 5; i++) {
            byte[] k = key(rnd);
            assertEquals(str(h.state().get(k)), str(store.get(k, ReadOptions.at(h.snapshot()))), what + ": get " + str(k));
        }
        checkScan(store, h.snapshot(), h.state(), rnd, rnd.nextBoolean(), op);
        assertEquals(toList(h.state().entrySet()), scan(store, h.snapshot(), null, null, false), what);
    }

    private static void checkScan(Store store, Snapshot at, NavigableMap<byte[], byte[]> model, Random rnd,
                                  boolean reverse, int op) {
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
        assertEquals(expected, scan(store, at, from, to, reverse), (reverse ? "reverse " : "") + "scan ["
                + str(from) + ", " + str(to) + ") at op " + op + (at == null ? "" : " at a snapshot"));
    }

    private static List<String> scan(Store store, Snapshot at, byte[] from, byte[] to, boolean reverse) {
        ReadOptions ro = at == null ? ReadOptions.DEFAULT : ReadOptions.at(at);
        List<String> out = new ArrayList<>();
        try (StoreIterator it = reverse ? store.reverseIterator(from, to, ro) : store.iterator(from, to, ro)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                out.add(str(kv.key()) + "=" + str(kv.value()));
            }
        }
        return out;
    }

    private static List<String> toList(Iterable<Map.Entry<byte[], byte[]>> entries) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : entries) {
            out.add(str(e.getKey()) + "=" + str(e.getValue()));
        }
        return out;
    }

    private static byte[] key(Random rnd) {
        return String.format("k%04d", rnd.nextInt(KEYS)).getBytes(StandardCharsets.UTF_8);
    }

    /** A range [from, to), from &lt; to: mostly short, sometimes most of the key space. */
    private static byte[][] range(Random rnd) {
        int a = rnd.nextInt(KEYS);
        int len = rnd.nextInt(10) == 0 ? rnd.nextInt(KEYS) + 1 : 1 + rnd.nextInt(30);
        List<byte[]> r = new ArrayList<>(List.of(String.format("k%04d", a).getBytes(StandardCharsets.UTF_8),
                String.format("k%04d", a + len).getBytes(StandardCharsets.UTF_8)));
        if (rnd.nextInt(8) == 0) {
            // A bound that is no key: between two keys.
            r.set(1, (String.format("k%04d", a + len - 1) + "x").getBytes(StandardCharsets.UTF_8));
        }
        Collections.sort(r, Arrays::compareUnsigned);
        return new byte[][] {r.get(0), r.get(1)};
    }

    private static byte[] value(Random rnd) {
        byte[] v = new byte[rnd.nextInt(40)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + rnd.nextInt(26));
        }
        return v;
    }

    private static String str(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
