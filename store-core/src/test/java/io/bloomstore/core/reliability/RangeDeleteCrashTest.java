package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Range deletions across machine crashes ({@link FaultInjectionFileSystem}: unsynced bytes lost, or
 * torn at a random byte; the crash strikes at a random file-system call — in a WAL write, a flush, a
 * compaction, a whole-table drop or a tombstone's removal — or after the last operation). Random
 * puts, range deletions (alone and in batches with puts), syncs, flushes and compactions run over a
 * loaded key space; after the crash the reopened store, read by scan and by get, must hold exactly
 * the state after some prefix of the operations that includes every durable one (synced, or
 * followed by a completed flush): so a range deletion is there whole or not at all, and no key it
 * deleted ever comes back — not after a flush moved it to the MANIFEST, nor after a compaction
 * dropped what it covered or removed it. The files must also verify. Seeds are printed.
 */
class RangeDeleteCrashTest {
    private static final Path DIR = Path.of("/crash/store");
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256)
            .l0Triggers(2, 3, 4).baseLevelBytes(8 * 1024).levelSizeRatio(2).targetFileBytes(2 * 1024)
            .blockCacheBytes(0).build();
    private static final int KEYS = 300;

    @Test
    void rangeDeletionIsAllOrNothingAndNeverResurrects() throws Exception {
        long base = Long.getLong("bloomstore.seed", System.nanoTime());
        int runs = Integer.getInteger("bloomstore.crash.runs", 40);
        for (int i = 0; i < runs; i++) {
            long seed = base + i;
            try {
                run(seed);
            } catch (Throwable t) {
                throw new AssertionError("range deletion crash run failed with seed " + seed
                        + "; replay with -Dbloomstore.seed=" + seed + " -Dbloomstore.crash.runs=1", t);
            }
        }
        System.out.println("RangeDeleteCrashTest: " + runs + " crash runs from seed " + base);
    }

    private static void run(long seed) throws Exception {
        Random rnd = new Random(seed);
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        List<NavigableMap<byte[], byte[]>> states = new ArrayList<>();
        Store store = Store.open(fs, DIR, OPTIONS);
        for (int k = 0; k < KEYS; k++) {
            store.put(key(k), value(rnd));
            model.put(key(k), store.get(key(k)));
        }
        store.flush();
        states.add(copy(model));
        int durable = 0;
        fs.crashAfterOperations(rnd.nextInt(300));
        try {
            for (int op = 0; op < 120; op++) {
                int choice = rnd.nextInt(100);
                boolean sync = rnd.nextInt(5) == 0;
                WriteOptions wo = sync ? WriteOptions.SYNC : WriteOptions.DEFAULT;
                if (choice < 45) {
                    int a = rnd.nextInt(KEYS);
                    int b = Math.min(KEYS + 1, a + 1 + rnd.nextInt(rnd.nextInt(6) == 0 ? KEYS : 40));
                    store.deleteRange(key(a), key(b), wo);
                    model.subMap(key(a), true, key(b), false).clear();
                } else if (choice < 75) {
                    byte[] k = key(rnd.nextInt(KEYS));
                    byte[] v = value(rnd);
                    store.put(k, v, wo);
                    model.put(k, v);
                } else if (choice < 85) {
                    int a = rnd.nextInt(KEYS);
                    byte[] k = key(rnd.nextInt(KEYS));
                    byte[] v = value(rnd);
                    WriteBatch batch = new WriteBatch().deleteRange(key(a), key(a + 20)).put(k, v);
                    store.write(batch, wo);
                    model.subMap(key(a), true, key(a + 20), false).clear();
                    model.put(k, v);
                } else if (choice < 93) {
                    store.flush();
                    sync = true;
                } else {
                    store.compact();
                    sync = true;
                }
                states.add(copy(model));
                if (sync) {
                    durable = states.size() - 1;
                }
            }
            if (rnd.nextBoolean()) {
                fs.crash();
            } else {
                fs.crashTearing();
            }
        } catch (IOException | RuntimeException e) {
            // The crash struck inside an operation: that operation may or may not have survived.
            states.add(copy(model));
        }
        try {
            store.close();
        } catch (IOException | RuntimeException e) {
            // a dead file system
        }
        try (Store reopened = Store.open(mem, DIR, OPTIONS)) {
            List<String> got = scan(reopened);
            int match = -1;
            for (int i = states.size() - 1; i >= durable && match < 0; i--) {
                if (toList(states.get(i)).equals(got)) {
                    match = i;
                }
            }
            assertTrue(match >= 0, "the recovered store is no prefix of the history from the last durable "
                    + "operation " + durable + " on (of " + (states.size() - 1) + "): " + got.size() + " keys");
            NavigableMap<byte[], byte[]> expected = states.get(match);
            for (int k = 0; k <= KEYS; k++) {
                byte[] v = reopened.get(key(k));
                byte[] e = expected.get(key(k));
                assertTrue(Arrays.equals(e, v), "get " + new String(key(k), StandardCharsets.UTF_8) + " after the crash");
            }
        }
        var report = StoreVerifier.verify(mem, DIR);
        assertTrue(report.clean(), "the files verify after the crash: " + report.errors());
    }

    private static NavigableMap<byte[], byte[]> copy(NavigableMap<byte[], byte[]> m) {
        NavigableMap<byte[], byte[]> c = new TreeMap<>(Arrays::compareUnsigned);
        c.putAll(m);
        return c;
    }

    private static List<String> scan(Store s) {
        List<String> out = new ArrayList<>();
        try (StoreIterator it = s.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                out.add(new String(kv.key(), StandardCharsets.UTF_8) + "=" + new String(kv.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static List<String> toList(NavigableMap<byte[], byte[]> m) {
        List<String> out = new ArrayList<>();
        for (var e : m.entrySet()) {
            out.add(new String(e.getKey(), StandardCharsets.UTF_8) + "=" + new String(e.getValue(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static byte[] key(int k) {
        return String.format("k%04d", k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(Random rnd) {
        byte[] v = new byte[1 + rnd.nextInt(30)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + rnd.nextInt(26));
        }
        return v;
    }
}
