package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store owns what it keeps and the caller owns what it is handed: a caller that reuses its key
 * and value buffers after {@code put}, after {@code WriteBatch.put} (before {@code write}) and
 * after {@code write}, and that scribbles over arrays returned by {@code get} and iterators, must
 * see exactly what a model of the writes holds — in the open store, after a reopen and in verify.
 */
class BufferOwnershipTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void mutatingKeyAndValueAfterPutChangesNothing() throws Exception {
        try (Store store = Store.open(dir)) {
            byte[] k = bytes("key-0001");
            byte[] v = bytes("value-0001");
            store.put(k, v);
            k[4] = 'z';
            v[6] = 'X';
            assertArrayEquals(bytes("value-0001"), store.get(bytes("key-0001")));
            assertNull(store.get(bytes("key-z001")));
        }
        try (Store store = Store.open(dir)) {
            assertArrayEquals(bytes("value-0001"), store.get(bytes("key-0001")));
            assertNull(store.get(bytes("key-z001")));
        }
        assertTrue(StoreVerifier.verify(dir).clean());
    }

    @Test
    void mutatingAfterBatchPutBeforeWriteChangesNothing() throws Exception {
        try (Store store = Store.open(dir)) {
            byte[] k = bytes("key-a");
            byte[] v = bytes("value-a");
            byte[] d = bytes("key-b");
            store.put(bytes("key-b"), bytes("old"));
            WriteBatch batch = new WriteBatch().put(k, v).delete(d);
            k[4] = 'q';
            v[0] = 'V';
            d[4] = 'c';
            store.write(batch, WriteOptions.DEFAULT);
            assertArrayEquals(bytes("value-a"), store.get(bytes("key-a")));
            assertNull(store.get(bytes("key-q")));
            assertNull(store.get(bytes("key-b")), "the delete must hit the key as it was when added");
        }
        try (Store store = Store.open(dir)) {
            assertArrayEquals(bytes("value-a"), store.get(bytes("key-a")));
            assertNull(store.get(bytes("key-b")));
        }
    }

    @Test
    void returnedArraysAreTheCallers() throws Exception {
        try (Store store = Store.open(dir)) {
            store.put(bytes("a"), bytes("in-memtable"));
            store.get(bytes("a"))[0] = 'X';
            assertArrayEquals(bytes("in-memtable"), store.get(bytes("a")));
            store.flush();
            store.get(bytes("a"))[0] = 'X';
            assertArrayEquals(bytes("in-memtable"), store.get(bytes("a")));
            store.put(bytes("b"), bytes("memtable"));
            try (StoreIterator it = store.iterator(null, null)) {
                while (it.hasNext()) {
                    KeyValue kv = it.next();
                    kv.key()[0] = 'Z';
                    kv.value()[0] = 'Z';
                }
            }
            assertArrayEquals(bytes("in-memtable"), store.get(bytes("a")));
            assertArrayEquals(bytes("memtable"), store.get(bytes("b")));
        }
    }

    /**
     * Random puts, batches and deletes through two reused buffers, each overwritten with garbage
     * right after every call that handed it to the store; the store must agree with a model.
     */
    @Test
    void reusedBuffersAgreeWithModel() throws Exception {
        long seed = Long.getLong("bloomstore.seed", System.nanoTime());
        System.out.println("BufferOwnershipTest seed " + seed);
        Random rnd = new Random(seed);
        TreeMap<String, String> model = new TreeMap<>();
        byte[] keyBuf = new byte[6];
        byte[] valueBuf = new byte[12];
        StoreOptions options = StoreOptions.builder().memtableBytes(4 * 1024).blockSize(256).build();
        try (Store store = Store.open(dir, options)) {
            WriteBatch batch = new WriteBatch();
            Map<String, String> pending = new TreeMap<>();
            for (int i = 0; i < 3000; i++) {
                String key = String.format("k%05d", rnd.nextInt(500));
                String value = String.format("v%05d-%05d", i, rnd.nextInt(100000)).substring(0, 12);
                fill(keyBuf, key);
                fill(valueBuf, value);
                int op = rnd.nextInt(10);
                if (op < 5) {
                    store.put(keyBuf, valueBuf);
                    model.put(key, value);
                } else if (op < 6) {
                    store.delete(keyBuf);
                    model.remove(key);
                } else if (op < 9) {
                    batch.put(keyBuf, valueBuf);
                    pending.put(key, value);
                } else {
                    store.write(batch, WriteOptions.DEFAULT);
                    model.putAll(pending);
                    pending.clear();
                    batch.clear();
                }
                rnd.nextBytes(keyBuf);
                rnd.nextBytes(valueBuf);
            }
            store.write(batch, WriteOptions.DEFAULT);
            model.putAll(pending);
            assertAgrees(store, model, seed);
        }
        try (Store store = Store.open(dir, options)) {
            assertAgrees(store, model, seed);
        }
        VerifyReport report = StoreVerifier.verify(dir);
        assertTrue(report.clean(), report.errors().toString());
    }

    private static void fill(byte[] buf, String s) {
        byte[] b = bytes(s);
        assertEquals(buf.length, b.length);
        System.arraycopy(b, 0, buf, 0, b.length);
    }

    private static void assertAgrees(Store store, TreeMap<String, String> model, long seed) throws Exception {
        List<String> scanned = new ArrayList<>();
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                String key = new String(kv.key(), StandardCharsets.UTF_8);
                scanned.add(key);
                assertEquals(model.get(key), new String(kv.value(), StandardCharsets.UTF_8), "seed " + seed);
            }
        }
        assertEquals(new ArrayList<>(model.keySet()), scanned, "seed " + seed);
        for (Map.Entry<String, String> e : model.entrySet()) {
            assertTrue(Arrays.equals(bytes(e.getValue()), store.get(bytes(e.getKey()))), "seed " + seed + " key "
                    + e.getKey());
        }
    }
}
