package io.bloomstore.kafka;

import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.bloomstore.kafka.StoreHarness.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code KeyValueStore<Bytes, byte[]>} contract, checked by running the same random
 * operation sequences on a BloomStore and on Kafka's in-memory store (the reference) and
 * requiring the same answer from every call: get, put (null value = delete), putIfAbsent,
 * putAll with tombstones and repeated keys, delete, range and reverseRange (inclusive, null
 * bounds open, from &gt; to empty), all, reverseAll, prefixScan, peekNextKey. Keys are drawn from
 * bytes 0x00, 0x01, 0x7F, 0x80, 0xFF with lengths 0..3, so empty keys, unsigned order and
 * 0xFF bytes are all exercised; memtables are tiny so reads span memtable and tables.
 * Seed: {@code -Dcontract.seed=N} (default fixed, printed); rounds {@code -Dcontract.ops=N}.
 */
class KeyValueStoreContractTest {
    private static final int[] ALPHABET = {0x00, 0x01, 0x7F, 0x80, 0xFF};

    @TempDir
    Path dir;

    @Test
    void sameResultsAsKafkaInMemoryStore() {
        long seed = Long.getLong("contract.seed", 20261123L);
        int ops = Integer.getInteger("contract.ops", 20_000);
        System.out.println("KeyValueStoreContractTest seed=" + seed + " ops=" + ops);
        Random rnd = new Random(seed);
        KeyValueStore<Bytes, byte[]> bloom = StoreHarness.init(
                new BloomStoreSupplier("contract", StoreHarness.SMALL, DslStoreFormat.PLAIN).get(), dir.resolve("bloom").toFile());
        KeyValueStore<Bytes, byte[]> ref = StoreHarness.init(
                Stores.inMemoryKeyValueStore("contract").get(), dir.resolve("ref").toFile());
        try {
            for (int i = 0; i < ops; i++) {
                int op = rnd.nextInt(100);
                String what = "op " + i + " (seed " + seed + ")";
                if (op < 30) {
                    Bytes k = randomKey(rnd);
                    byte[] v = rnd.nextInt(10) == 0 ? null : randomValue(rnd);
                    bloom.put(k, v);
                    ref.put(k, v);
                } else if (op < 50) {
                    Bytes k = randomKey(rnd);
                    assertEquals(hex(ref.get(k)), hex(bloom.get(k)), what + " get " + k);
                } else if (op < 55) {
                    Bytes k = randomKey(rnd);
                    byte[] v = randomValue(rnd);
                    assertEquals(hex(ref.putIfAbsent(k, v)), hex(bloom.putIfAbsent(k, v)), what + " putIfAbsent " + k);
                } else if (op < 60) {
                    Bytes k = randomKey(rnd);
                    assertEquals(hex(ref.delete(k)), hex(bloom.delete(k)), what + " delete " + k);
                } else if (op < 65) {
                    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
                    int n = rnd.nextInt(8);
                    for (int j = 0; j < n; j++) {
                        batch.add(KeyValue.pair(randomKey(rnd), rnd.nextInt(4) == 0 ? null : randomValue(rnd)));
                    }
                    bloom.putAll(batch);
                    ref.putAll(batch);
                } else if (op < 75) {
                    Bytes from = rnd.nextInt(6) == 0 ? null : randomKey(rnd);
                    Bytes to = rnd.nextInt(6) == 0 ? null : randomKey(rnd);
                    assertEquals(drain(ref.range(from, to)), drain(bloom.range(from, to)),
                            what + " range " + from + ".." + to);
                } else if (op < 85) {
                    Bytes from = rnd.nextInt(6) == 0 ? null : randomKey(rnd);
                    Bytes to = rnd.nextInt(6) == 0 ? null : randomKey(rnd);
                    assertEquals(drain(ref.reverseRange(from, to)), drain(bloom.reverseRange(from, to)),
                            what + " reverseRange " + from + ".." + to);
                } else if (op < 88) {
                    assertEquals(drain(ref.all()), drain(bloom.all()), what + " all");
                } else if (op < 91) {
                    assertEquals(drain(ref.reverseAll()), drain(bloom.reverseAll()), what + " reverseAll");
                } else if (op < 98) {
                    Bytes prefix = randomPrefix(rnd);
                    assertEquals(drain(ref.prefixScan(prefix.get(), Serdes.ByteArray().serializer())),
                            drain(bloom.prefixScan(prefix.get(), Serdes.ByteArray().serializer())),
                            what + " prefixScan " + prefix);
                } else {
                    bloom.commit(java.util.Map.of());
                }
            }
            assertEquals(drain(ref.all()), drain(bloom.all()), "final contents (seed " + seed + ")");
            long size = drain(ref.all()).size();
            long estimate = bloom.approximateNumEntries();
            assertTrue(estimate >= size, "approximateNumEntries " + estimate + " below live entries " + size);
        } finally {
            bloom.close();
            ref.close();
        }
    }

    @Test
    void nullsAreRejectedLikeKafkasStores() {
        KeyValueStore<Bytes, byte[]> bloom = StoreHarness.init(
                BloomStores.persistentKeyValueStore("nulls").get(), dir.toFile());
        KeyValueStore<Bytes, byte[]> ref = StoreHarness.init(
                Stores.inMemoryKeyValueStore("nulls").get(), dir.resolve("ref").toFile());
        for (KeyValueStore<Bytes, byte[]> s : List.of(bloom, ref)) {
            assertThrows(NullPointerException.class, () -> s.get(null), s.getClass().getSimpleName());
            assertThrows(NullPointerException.class, () -> s.put(null, new byte[1]));
            assertThrows(NullPointerException.class, () -> s.putIfAbsent(null, new byte[1]));
            assertThrows(NullPointerException.class, () -> s.delete(null));
            assertThrows(NullPointerException.class, () -> s.prefixScan(null, Serdes.ByteArray().serializer()));
        }
        // A putAll with a null key among good entries: BloomStore writes none of the batch.
        List<KeyValue<Bytes, byte[]>> bad = Arrays.asList(KeyValue.pair(Bytes.wrap(new byte[] {1}), new byte[] {1}),
                KeyValue.pair(null, new byte[] {2}));
        assertThrows(NullPointerException.class, () -> bloom.putAll(bad));
        assertEquals(List.of(), drain(bloom.all()));
        bloom.close();
        ref.close();
    }

    @Test
    void edgePrefixes() {
        KeyValueStore<Bytes, byte[]> bloom = StoreHarness.init(
                BloomStores.persistentKeyValueStore("prefix").get(), dir.toFile());
        byte[] v = {42};
        for (Bytes k : List.of(StoreHarness.key(), StoreHarness.key(0x00), StoreHarness.key(0xFE, 0xFF),
                StoreHarness.key(0xFF), StoreHarness.key(0xFF, 0x00), StoreHarness.key(0xFF, 0xFF, 0x01),
                StoreHarness.key(0xFF, 0x01), StoreHarness.key(0xFF, 0x00, 0xFF, 0x07))) {
            bloom.put(k, v);
        }
        assertEquals(drain(bloom.all()), drain(bloom.prefixScan(new byte[0], Serdes.ByteArray().serializer())));
        assertEquals(List.of("\\xFF=*", "\\xFF\\x00=*", "\\xFF\\x00\\xFF\\x07=*", "\\xFF\\x01=*",
                        "\\xFF\\xFF\\x01=*"),
                drain(bloom.prefixScan(new byte[] {(byte) 0xFF}, Serdes.ByteArray().serializer())));
        assertEquals(List.of("\\xFF\\x00\\xFF\\x07=*"),
                drain(bloom.prefixScan(new byte[] {(byte) 0xFF, 0, (byte) 0xFF}, Serdes.ByteArray().serializer())));
        assertEquals(List.of("\\xFF\\xFF\\x01=*"),
                drain(bloom.prefixScan(new byte[] {(byte) 0xFF, (byte) 0xFF}, Serdes.ByteArray().serializer())));
        bloom.close();
    }

    private static Bytes randomKey(Random rnd) {
        byte[] k = new byte[rnd.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return Bytes.wrap(k);
    }

    /**
     * A prefix on which Kafka's stores answer what their contract says: not empty and not ending
     * in 0xFF. Kafka computes the scan's end by incrementing the prefix with carry, so an empty or
     * all-0xFF prefix throws in the in-memory store (RocksDB's scans to the end), and a prefix
     * like FF 00 FF also returns the key FF 01, which lacks the prefix. BloomStore returns exactly
     * the keys with the prefix: see {@link #edgePrefixes}.
     */
    private static Bytes randomPrefix(Random rnd) {
        while (true) {
            Bytes k = randomKey(rnd);
            byte[] b = k.get();
            if (b.length > 0 && b[b.length - 1] != (byte) 0xFF) {
                return k;
            }
        }
    }

    private static byte[] randomValue(Random rnd) {
        byte[] v = new byte[rnd.nextInt(40)];
        rnd.nextBytes(v);
        return v;
    }

    private static String hex(byte[] v) {
        return v == null ? "null" : Bytes.wrap(v).toString();
    }
}
