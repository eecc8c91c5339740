package io.bloomstore.kafka;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static io.bloomstore.kafka.StoreHarness.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The key-value stores (plain, timestamped, headers) as transactional stores, against Kafka's own
 * in-memory store with {@code enable.transactional.statestores} on and off, over random sequences
 * of writes, reads of every kind, commits and crashes:
 * <ul>
 *   <li>the stream thread's reads (get, range, reverseRange, all, reverseAll, prefixScan) give
 *       Kafka's answers at every step, so uncommitted writes are read back (iterators merge them;
 *       nothing is written before a commit);</li>
 *   <li>{@code readOnly(READ_COMMITTED)} answers with the state of the last commit: equal to
 *       Kafka's transactional store's view with the setting on, and to the contents recorded at
 *       each commit in every case;</li>
 *   <li>a crash (the state directory copied while the store is open) opens without
 *       {@code TaskCorruptedException}, also under exactly_once_v2, holding exactly the state and
 *       the changelog offset of the last commit;</li>
 *   <li>{@code approximateNumUncommittedBytes} is positive exactly while writes are uncommitted.</li>
 * </ul>
 * With the setting on the application runs under exactly_once_v2, with it off under
 * at-least-once (where BloomStore's stores are transactional too; see {@link CommitMode}).
 * Seed: {@code -Dcontract.seed=N} (default fixed, printed); rounds {@code -Dcontract.ops=N}.
 */
class TransactionalKeyValueContractTest {
    private static final int[] ALPHABET = {0x00, 0x01, 0x7F, 0x80, 0xFF};
    private static final TopicPartition CHANGELOG = new TopicPartition("changelog", 0);

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (boolean setting : new boolean[] {true, false}) {
            for (DslStoreFormat format : DslStoreFormat.values()) {
                out.add(Arguments.of(setting, format));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "transactional setting {0}, {1}")
    @MethodSource("cases")
    void sameAnswersAsKafkasInMemoryStoreAcrossCommitsAndCrashes(boolean setting, DslStoreFormat format)
            throws IOException {
        long seed = Long.getLong("contract.seed", 20261128L);
        int ops = Integer.getInteger("contract.ops", 6_000);
        System.out.println("TransactionalKeyValueContractTest setting=" + setting + " format=" + format
                + " seed=" + seed + " ops=" + ops);
        String guarantee = setting ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE;
        Random rnd = new Random(seed);
        Path live = dir.resolve("bloom");
        KeyValueStore<Bytes, byte[]> bloom = new BloomStoreSupplier("tx", StoreHarness.SMALL, format).get();
        bloom.init(StoreHarness.context(live.toFile(), guarantee, setting), bloom);
        KeyValueStore<Bytes, byte[]> ref = Stores.inMemoryKeyValueStore("tx").get();
        ref.init(StoreHarness.context(dir.resolve("ref").toFile(), guarantee, setting), ref);
        List<String> committed = List.of();
        long offset = 0;
        int crashes = 0;
        boolean dirty = false;
        try {
            for (int i = 0; i < ops; i++) {
                int op = rnd.nextInt(100);
                String what = "op " + i + " (seed " + seed + ")";
                if (op < 30) {
                    Bytes k = randomKey(rnd);
                    byte[] v = rnd.nextInt(10) == 0 ? null : randomValue(rnd);
                    bloom.put(k, v);
                    ref.put(k, v);
                    dirty = true;
                } else if (op < 35) {
                    List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
                    for (int j = rnd.nextInt(6); j > 0; j--) {
                        batch.add(KeyValue.pair(randomKey(rnd), rnd.nextInt(4) == 0 ? null : randomValue(rnd)));
                    }
                    bloom.putAll(batch);
                    ref.putAll(batch);
                    dirty |= !batch.isEmpty();
                } else if (op < 40) {
                    Bytes k = randomKey(rnd);
                    assertEquals(hex(ref.delete(k)), hex(bloom.delete(k)), what + " delete " + k);
                    dirty = true;
                } else if (op < 43) {
                    Bytes k = randomKey(rnd);
                    byte[] v = randomValue(rnd);
                    byte[] old = ref.putIfAbsent(k, v);
                    assertEquals(hex(old), hex(bloom.putIfAbsent(k, v)), what + " putIfAbsent");
                    dirty |= old == null;
                } else if (op < 65) {
                    compareReads(rnd, ref, bloom, what);
                } else if (op < 75) {
                    ReadOnlyKeyValueStore<Bytes, byte[]> view = bloom.readOnly(IsolationLevel.READ_COMMITTED);
                    assertEquals(committed, drain(view.all()), what + " READ_COMMITTED all");
                    if (setting) {
                        compareReads(rnd, ref.readOnly(IsolationLevel.READ_COMMITTED), view, what + " READ_COMMITTED");
                    }
                    Bytes k = randomKey(rnd);
                    String expected = committed.stream().filter(e -> e.startsWith(k + "=")).findFirst()
                            .map(e -> e.substring(e.indexOf('=') + 1)).orElse("null");
                    assertEquals(expected, hex(view.get(k)), what + " READ_COMMITTED get " + k);
                } else if (op < 90) {
                    offset += 1 + rnd.nextInt(20);
                    bloom.commit(Map.of(CHANGELOG, offset));
                    ref.commit(Map.of(CHANGELOG, offset));
                    committed = drain(ref.all());
                    dirty = false;
                } else if (op < 99 || rnd.nextInt(4) > 0) {
                    long bytes = bloom.approximateNumUncommittedBytes();
                    assertEquals(dirty, bytes > 0, what + " uncommitted bytes " + bytes);
                } else {
                    // A crash: the files as they are now must open as the last commit left them.
                    Path crashed = dir.resolve("crash-" + crashes++);
                    ((BloomKeyValueStore) bloom).settle();
                    StoreHarness.copyState(live, crashed);
                    KeyValueStore<Bytes, byte[]> reopened = new BloomStoreSupplier("tx", StoreHarness.SMALL, format).get();
                    reopened.init(StoreHarness.context(crashed.toFile(), guarantee, setting), reopened);
                    try {
                        assertEquals(committed, drain(reopened.all()), what + " state after a crash");
                        assertEquals(offset == 0 ? null : offset, reopened.committedOffset(CHANGELOG),
                                what + " committed offset after a crash");
                    } finally {
                        reopened.close();
                    }
                }
            }
            assertTrue(crashes > 0, "the sequence crashed the store at least once");
        } finally {
            bloom.close();
            ref.close();
        }
    }

    private static void compareReads(Random rnd, ReadOnlyKeyValueStore<Bytes, byte[]> ref,
                                     ReadOnlyKeyValueStore<Bytes, byte[]> bloom, String what) {
        int kind = rnd.nextInt(6);
        Bytes from = rnd.nextInt(6) == 0 ? null : randomKey(rnd);
        Bytes to = rnd.nextInt(6) == 0 ? null : randomKey(rnd);
        switch (kind) {
            case 0 -> {
                Bytes k = randomKey(rnd);
                assertEquals(hex(ref.get(k)), hex(bloom.get(k)), what + " get " + k);
            }
            case 1 -> assertEquals(drain(ref.range(from, to)), drain(bloom.range(from, to)),
                    what + " range " + from + ".." + to);
            case 2 -> assertEquals(drain(ref.reverseRange(from, to)), drain(bloom.reverseRange(from, to)),
                    what + " reverseRange " + from + ".." + to);
            case 3 -> assertEquals(drain(ref.all()), drain(bloom.all()), what + " all");
            case 4 -> assertEquals(drain(ref.reverseAll()), drain(bloom.reverseAll()), what + " reverseAll");
            default -> {
                Bytes prefix = randomPrefix(rnd);
                assertEquals(drain(ref.prefixScan(prefix.get(), Serdes.ByteArray().serializer())),
                        drain(bloom.prefixScan(prefix.get(), Serdes.ByteArray().serializer())),
                        what + " prefixScan " + prefix);
            }
        }
    }

    private static Bytes randomKey(Random rnd) {
        byte[] k = new byte[rnd.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return Bytes.wrap(k);
    }

    /** Not empty and not ending in 0xFF: see {@link KeyValueStoreContractTest}'s prefixes. */
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
