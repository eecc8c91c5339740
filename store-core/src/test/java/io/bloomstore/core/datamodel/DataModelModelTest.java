package io.bloomstore.core.datamodel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Model test of merge operators and TTL: random puts, deletes, range deletions, merges (append with a comma), batches
 * of them, clock moves, gets, scans both ways, snapshots held across operations, flushes,
 * compactions (tiny levels, so background compactions run all the time) and reopens, checked
 * against a {@link TreeMap} that applies every operation at once. A failure names the seed; rerun
 * with {@code -Dbloomstore.seed=N}.
 */
class DataModelModelTest {
    private static final int OPERATIONS = 3000;
    private static final long TTL_MS = 1000;

    private static StoreOptions.Builder compacting() {
        return StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).l0Triggers(2, 3, 4)
                .baseLevelBytes(8 * 1024).levelSizeRatio(2).targetFileBytes(4 * 1024);
    }

    @Test
    void mergesMatchModel() throws Exception {
        for (int round = 0; round < 3; round++) {
            long seed = Long.getLong("bloomstore.seed", System.nanoTime());
            try {
                run(seed, false);
            } catch (Throwable t) {
                throw new AssertionError("merge model failed with seed " + seed + "; replay with -Dbloomstore.seed="
                        + seed, t);
            }
        }
    }

    @Test
    void ttlMatchesModel() throws Exception {
        for (int round = 0; round < 3; round++) {
            long seed = Long.getLong("bloomstore.seed", System.nanoTime());
            try {
                run(seed, true);
            } catch (Throwable t) {
                throw new AssertionError("ttl model failed with seed " + seed + "; replay with -Dbloomstore.seed="
                        + seed, t);
            }
        }
    }

    /** What the model holds per key: a value and its write time. */
    private record Entry(String value, long written) {
    }

    private void run(long seed, boolean ttl) throws Exception {
        Random rnd = new Random(seed);
        MutableClock clock = new MutableClock(1_000_000);
        StoreOptions options = ttl ? compacting().ttl(Duration.ofMillis(TTL_MS)).clock(clock).build()
                : compacting().mergeOperator(MergeOperators.append(bytes(","))).build();
        FileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/model/store");
        NavigableMap<String, Entry> model = new TreeMap<>();
        Store store = Store.open(fs, dir, options);
        Snapshot held = null;
        // The model as of the held snapshot: its values expire by the clock like everyone else's.
        NavigableMap<String, Entry> heldState = null;
        try {
            for (int op = 0; op < OPERATIONS; op++) {
                if (op % 250 == 0) {
                    if (held != null) {
                        assertEquals(live(heldState, clock.millis()), scan(store, ReadOptions.at(held), false),
                                "held snapshot since op " + (op - 250));
                        held.close();
                    }
                    held = store.snapshot();
                    heldState = new TreeMap<>(model);
                }
                int c = rnd.nextInt(100);
                String k = key(rnd);
                if (c < 25) {
                    String v = "v" + rnd.nextInt(1000);
                    store.put(bytes(k), bytes(v));
                    model.put(k, new Entry(v, clock.millis()));
                } else if (c < 32) {
                    if (rnd.nextInt(3) == 0) {
                        // A range deletion: merges over keys it covers start from nothing afterwards.
                        String to = key(rnd);
                        String from = k.compareTo(to) <= 0 ? k : to;
                        String end = k.compareTo(to) <= 0 ? to : k;
                        store.deleteRange(bytes(from), bytes(end));
                        model.subMap(from, end).clear();
                    } else {
                        store.delete(bytes(k));
                        model.remove(k);
                    }
                } else if (c < 52) {
                    if (ttl) {
                        clock.advance(rnd.nextInt(200));
                    } else {
                        String operand = "m" + rnd.nextInt(100);
                        store.merge(bytes(k), bytes(operand));
                        merge(model, k, operand, clock.millis());
                    }
                } else if (c < 70) {
                    String expected = live(model, clock.millis()).get(k);
                    byte[] actual = store.get(bytes(k));
                    assertEquals(expected, actual == null ? null : str(actual), "get " + k + " at op " + op);
                } else if (c < 78) {
                    assertEquals(live(model, clock.millis()), scan(store, ReadOptions.DEFAULT, rnd.nextBoolean()),
                            "scan at op " + op);
                } else if (c < 86) {
                    WriteBatch batch = new WriteBatch();
                    int n = 1 + rnd.nextInt(10);
                    for (int i = 0; i < n; i++) {
                        String bk = key(rnd);
                        int kind = rnd.nextInt(3);
                        if (kind == 0) {
                            batch.delete(bytes(bk));
                            model.remove(bk);
                        } else if (kind == 1 || ttl) {
                            String v = "b" + rnd.nextInt(1000);
                            batch.put(bytes(bk), bytes(v));
                            model.put(bk, new Entry(v, clock.millis()));
                        } else {
                            String operand = "n" + rnd.nextInt(100);
                            batch.merge(bytes(bk), bytes(operand));
                            merge(model, bk, operand, clock.millis());
                        }
                    }
                    store.write(batch, io.bloomstore.core.WriteOptions.DEFAULT);
                } else if (c < 90) {
                    try (Snapshot s = store.snapshot()) {
                        Map<String, String> before = live(model, clock.millis());
                        String wk = key(rnd);
                        if (ttl) {
                            store.put(bytes(wk), bytes("s"));
                            model.put(wk, new Entry("s", clock.millis()));
                        } else {
                            store.merge(bytes(wk), bytes("s"));
                            merge(model, wk, "s", clock.millis());
                        }
                        store.compact();
                        assertEquals(before, scan(store, ReadOptions.at(s), rnd.nextBoolean()), "snapshot at op " + op);
                    }
                } else if (c < 94) {
                    store.flush();
                } else if (c < 97) {
                    store.compact();
                } else {
                    if (held != null) {
                        held.close();
                        held = null;
                    }
                    store.close();
                    store = Store.open(fs, dir, options);
                }
            }
            store.close();
            store = Store.open(fs, dir, options);
            assertEquals(live(model, clock.millis()), scan(store, ReadOptions.DEFAULT, false), "after the last reopen");
            store.compact();
            assertEquals(live(model, clock.millis()), scan(store, ReadOptions.DEFAULT, true), "after a full compaction");
        } finally {
            if (held != null) {
                held.close();
            }
            store.close();
        }
    }

    /** Appends as MergeOperators.append(",") does, over a value that has not expired. */
    private static void merge(NavigableMap<String, Entry> model, String k, String operand, long now) {
        Entry e = model.get(k);
        model.put(k, new Entry(e == null ? operand : e.value() + "," + operand, now));
    }

    /** The model's keys as reads see them at {@code now}: values within the TTL. */
    private static Map<String, String> live(NavigableMap<String, Entry> model, long now) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, Entry> e : model.entrySet()) {
            if (now - e.getValue().written() < TTL_MS) {
                out.put(e.getKey(), e.getValue().value());
            }
        }
        return out;
    }

    private static Map<String, String> scan(Store store, ReadOptions ro, boolean reverse) {
        Map<String, String> out = new TreeMap<>();
        List<String> order = new ArrayList<>();
        try (StoreIterator it = reverse ? store.reverseIterator(null, null, ro) : store.iterator(null, null, ro)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                out.put(str(kv.key()), str(kv.value()));
                order.add(str(kv.key()));
            }
        }
        List<String> sorted = new ArrayList<>(order);
        sorted.sort(reverse ? java.util.Comparator.reverseOrder() : java.util.Comparator.naturalOrder());
        assertEquals(sorted, order, "iteration order");
        return out;
    }

    private static String key(Random rnd) {
        return String.format("k%03d", rnd.nextInt(150));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
