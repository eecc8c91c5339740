package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.KeyspaceOptions;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.datamodel.MutableClock;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Model test of keyspaces: random puts, deletes, range deletions and batches spread over four
 * keyspaces — the default one, {@code a} with an append merge operator, {@code b} with a TTL (a
 * controllable clock), and {@code c}, which is dropped and made again now and then — with gets,
 * scans both ways, a snapshot held across operations and checked in every keyspace, flushes,
 * compactions (tiny levels, so background compactions run all the time) and reopens, checked
 * against one {@link TreeMap} per keyspace. A failure names the seed; rerun with
 * {@code -Dbloomstore.seed=N}.
 */
class KeyspaceModelTest {
    private static final int OPERATIONS = 3000;
    private static final long TTL_MS = 1000;
    private static final List<String> NAMES = List.of("default", "a", "b", "c");

    /** A value and its write time (which only keyspace b's TTL looks at). */
    private record Entry(String value, long written) {
    }

    @Test
    void keyspacesMatchModel() throws Exception {
        for (int round = 0; round < 3; round++) {
            long seed = Long.getLong("bloomstore.seed", System.nanoTime());
            try {
                run(seed);
            } catch (Throwable t) {
                throw new AssertionError("keyspace model failed with seed " + seed + "; replay with "
                        + "-Dbloomstore.seed=" + seed, t);
            }
        }
    }

    private static final KeyspaceOptions APPEND = KeyspaceOptions.builder()
            .mergeOperator(MergeOperators.append(bytes(","))).build();
    private static final KeyspaceOptions TTL = KeyspaceOptions.builder().ttl(Duration.ofMillis(TTL_MS)).build();

    private void run(long seed) throws Exception {
        Random rnd = new Random(seed);
        MutableClock clock = new MutableClock(1_000_000);
        StoreOptions options = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).l0Triggers(2, 3, 4)
                .baseLevelBytes(8 * 1024).levelSizeRatio(2).targetFileBytes(4 * 1024).clock(clock)
                .keyspaceOptions("a", APPEND).keyspaceOptions("b", TTL).build();
        FileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/model/keyspaces");
        Map<String, NavigableMap<String, Entry>> model = new HashMap<>();
        for (String n : NAMES) {
            model.put(n, new TreeMap<>());
        }
        Store store = Store.open(fs, dir, options);
        Map<String, Keyspace> ks = handles(store);
        Snapshot held = null;
        Map<String, Map<String, String>> heldState = null;
        long heldAt = 0;
        try {
            for (int op = 0; op < OPERATIONS; op++) {
                if (op % 250 == 0) {
                    if (held != null) {
                        for (String n : NAMES) {
                            if (n.equals("c") || n.equals("b")) {
                                continue; // c may have been dropped since; b's values expire by the clock
                            }
                            assertEquals(heldState.get(n), scan(store, ks.get(n), ReadOptions.at(held), false),
                                    "held snapshot of " + n + " since op " + heldAt);
                        }
                        held.close();
                    }
                    held = store.snapshot();
                    heldAt = op;
                    heldState = new HashMap<>();
                    for (String n : NAMES) {
                        heldState.put(n, live(model.get(n), n, clock.millis()));
                    }
                }
                String n = NAMES.get(rnd.nextInt(NAMES.size()));
                Keyspace k = ks.get(n);
                NavigableMap<String, Entry> m = model.get(n);
                int c = rnd.nextInt(100);
                String key = key(rnd);
                if (c < 22) {
                    String v = "v" + rnd.nextInt(1000);
                    store.put(k, bytes(key), bytes(v));
                    m.put(key, new Entry(v, clock.millis()));
                } else if (c < 28) {
                    if (rnd.nextInt(3) == 0) {
                        String to = key(rnd);
                        String from = key.compareTo(to) <= 0 ? key : to;
                        String end = key.compareTo(to) <= 0 ? to : key;
                        store.deleteRange(k, bytes(from), bytes(end));
                        m.subMap(from, end).clear();
                    } else {
                        store.delete(k, bytes(key));
                        m.remove(key);
                    }
                } else if (c < 38) {
                    if (n.equals("a")) {
                        String operand = "m" + rnd.nextInt(100);
                        store.merge(k, bytes(key), bytes(operand));
                        merge(m, key, operand, clock.millis());
                    } else {
                        clock.advance(rnd.nextInt(150));
                    }
                } else if (c < 56) {
                    String expected = live(m, n, clock.millis()).get(key);
                    byte[] actual = store.get(k, bytes(key));
                    assertEquals(expected, actual == null ? null : str(actual), "get " + n + "/" + key + " at op " + op);
                } else if (c < 64) {
                    assertEquals(live(m, n, clock.millis()), scan(store, k, ReadOptions.DEFAULT, rnd.nextBoolean()),
                            "scan of " + n + " at op " + op);
                } else if (c < 80) {
                    // One batch over several keyspaces.
                    WriteBatch batch = new WriteBatch();
                    int count = 1 + rnd.nextInt(12);
                    for (int i = 0; i < count; i++) {
                        String bn = NAMES.get(rnd.nextInt(NAMES.size()));
                        Keyspace bk = ks.get(bn);
                        NavigableMap<String, Entry> bm = model.get(bn);
                        String bkey = key(rnd);
                        int kind = rnd.nextInt(4);
                        if (kind == 0) {
                            batch.delete(bk, bytes(bkey));
                            bm.remove(bkey);
                        } else if (kind == 1 && bn.equals("a")) {
                            String operand = "n" + rnd.nextInt(100);
                            batch.merge(bk, bytes(bkey), bytes(operand));
                            merge(bm, bkey, operand, clock.millis());
                        } else {
                            String v = "b" + rnd.nextInt(1000);
                            batch.put(bk, bytes(bkey), bytes(v));
                            bm.put(bkey, new Entry(v, clock.millis()));
                        }
                    }
                    store.write(batch, WriteOptions.DEFAULT);
                } else if (c < 86) {
                    store.flush();
                } else if (c < 90) {
                    store.compact();
                } else if (c < 93) {
                    store.dropKeyspace("c");
                    model.get("c").clear();
                    ks.put("c", store.keyspace("c"));
                } else {
                    if (held != null) {
                        held.close();
                        held = null;
                    }
                    store.close();
                    store = Store.open(fs, dir, options);
                    assertEquals(List.of("default", "a", "b", "c"), store.keyspaces().stream().sorted(
                            (x, y) -> NAMES.indexOf(x) - NAMES.indexOf(y)).toList(), "keyspaces after a reopen");
                    ks = handles(store);
                }
            }
            store.close();
            store = Store.open(fs, dir, options);
            ks = handles(store);
            for (String n : NAMES) {
                assertEquals(live(model.get(n), n, clock.millis()), scan(store, ks.get(n), ReadOptions.DEFAULT, false),
                        n + " after the last reopen");
            }
            store.compact();
            for (String n : NAMES) {
                assertEquals(live(model.get(n), n, clock.millis()), scan(store, ks.get(n), ReadOptions.DEFAULT, true),
                        n + " after a full compaction");
            }
        } finally {
            if (held != null) {
                held.close();
            }
            store.close();
        }
    }

    private static Map<String, Keyspace> handles(Store store) throws Exception {
        Map<String, Keyspace> ks = new HashMap<>();
        ks.put("default", store.keyspace("default"));
        ks.put("a", store.keyspace("a", APPEND));
        ks.put("b", store.keyspace("b", TTL));
        ks.put("c", store.keyspace("c"));
        return ks;
    }

    private static void merge(NavigableMap<String, Entry> model, String k, String operand, long now) {
        Entry e = model.get(k);
        model.put(k, new Entry(e == null ? operand : e.value() + "," + operand, now));
    }

    /** A keyspace's model as reads see it at {@code now}: in b, only values within the TTL. */
    private static Map<String, String> live(NavigableMap<String, Entry> model, String name, long now) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, Entry> e : model.entrySet()) {
            if (!name.equals("b") || now - e.getValue().written() < TTL_MS) {
                out.put(e.getKey(), e.getValue().value());
            }
        }
        return out;
    }

    private static Map<String, String> scan(Store store, Keyspace k, ReadOptions ro, boolean reverse)
            throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (StoreIterator it = reverse ? store.reverseIterator(k, null, null, ro) : store.iterator(k, null, null, ro)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                out.put(str(kv.key()), str(kv.value()));
            }
        }
        return out;
    }

    private static String key(Random rnd) {
        return String.format("k%03d", rnd.nextInt(300));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
