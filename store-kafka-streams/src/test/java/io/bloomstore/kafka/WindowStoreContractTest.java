package io.bloomstore.kafka;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code WindowStore<Bytes, byte[]>} contract, checked by running the same random operation
 * sequences on a BloomStore window store and on Kafka's in-memory window store (the reference):
 * put (null deletes, or is ignored with retainDuplicates), fetch(key, time), fetch and
 * backwardFetch of one key (same list, in window-start order), of key ranges with null bounds, with
 * from &gt; to, fetchAll, all and their backward forms. Kafka's own stores order key-range results
 * differently (the in-memory store by time, RocksDB's by segment, then key), so those are compared
 * as sorted lists, and the BloomStore's own order is checked to be RocksDB's. Stream time moves
 * forward with late and expired puts, so segments are created and dropped; tiny memtables spread
 * each segment over several tables.
 *
 * <p>Transactional ({@link CommitMode}): the same runs go with {@code enable.transactional.statestores}
 * on (under exactly_once_v2, against Kafka's transactional in-memory store) and off (under
 * at-least-once, where BloomStore's stores are transactional too), with commits at random points.
 * Every read above is the stream thread's, uncommitted writes included; besides,
 * {@code readOnly(READ_COMMITTED)} must answer with the contents of the last commit, and a crash
 * (the state directory copied while the store is open) must open without a wipe holding exactly
 * those contents and the last committed offset. Seed: {@code -Dcontract.seed=N} (printed);
 * operations {@code -Dcontract.ops=N}.
 */
class WindowStoreContractTest {
    private static final int[] ALPHABET = {0x00, 0x01, 0x02, 0x7F, 0xFF};
    private static final long RETENTION = 180_000;
    private static final long WINDOW = 10_000;
    /** Kafka's segment interval for this retention: max(retention / 2, 60 s). */
    private static final long INTERVAL = 90_000;
    private static final TopicPartition CHANGELOG = new TopicPartition("changelog", 0);

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        return Stream.of(Arguments.of(false, true), Arguments.of(true, true), Arguments.of(false, false),
                Arguments.of(true, false));
    }

    @ParameterizedTest(name = "retainDuplicates={0}, transactional setting {1}")
    @MethodSource("cases")
    void sameResultsAsKafkaInMemoryStore(boolean retainDuplicates, boolean setting) throws IOException {
        long seed = Long.getLong("contract.seed", 20261125L) + (retainDuplicates ? 1 : 0);
        int ops = Integer.getInteger("contract.ops", 4_000);
        System.out.println("WindowStoreContractTest retainDuplicates=" + retainDuplicates + " setting=" + setting
                + " seed=" + seed + " ops=" + ops);
        Random rnd = new Random(seed);
        String guarantee = setting ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE;
        Supplier<BloomWindowStore> create = () -> (BloomWindowStore) BloomStores.windowStore("w",
                Duration.ofMillis(RETENTION), Duration.ofMillis(WINDOW), retainDuplicates, StoreHarness.SMALL,
                DslStoreFormat.PLAIN).get();
        Path live = dir.resolve("bloom");
        BloomWindowStore bloom = create.get();
        bloom.init(StoreHarness.context(live.toFile(), guarantee, setting), bloom);
        WindowStore<Bytes, byte[]> ref = Stores.inMemoryWindowStore("w", Duration.ofMillis(RETENTION),
                Duration.ofMillis(WINDOW), retainDuplicates).get();
        ref.init(StoreHarness.context(dir.resolve("ref").toFile(), guarantee, setting), ref);
        long streamTime = 0;
        int segmentsDropped = 0;
        long lastSegment = 0;
        List<String> committed = List.of();
        long offset = 0;
        int crashes = 0;
        try {
            for (int i = 0; i < ops; i++) {
                int op = rnd.nextInt(100);
                String what = "op " + i + " (seed " + seed + ")";
                if (op < 40) {
                    // Mostly near the stream time, some late, a few expired; time advances.
                    streamTime += rnd.nextInt(4) == 0 ? rnd.nextInt(5_000) : 0;
                    long t = Math.max(0, streamTime - (rnd.nextInt(10) == 0 ? RETENTION + rnd.nextInt(60_000)
                            : rnd.nextInt(60_000)));
                    t -= t % 1000;
                    Bytes k = randomKey(rnd);
                    // With retainDuplicates a null put is ignored by Kafka's RocksDB store (stream time
                    // unchanged) but moves the in-memory store's stream time: only put values then.
                    byte[] v = !retainDuplicates && rnd.nextInt(8) == 0 ? null : randomValue(rnd);
                    bloom.put(k, v, t);
                    ref.put(k, v, t);
                } else if (op < 50 && !retainDuplicates) {
                    // Kafka's stores disagree on fetch(key, time) with duplicates (RocksDB's looks up the
                    // last sequence number, the in-memory store nothing), so it is only compared without.
                    Bytes k = randomKey(rnd);
                    long t = randomTime(rnd, streamTime);
                    assertEquals(hex(ref.fetch(k, t)), hex(bloom.fetch(k, t)), what + " fetch " + k + "@" + t);
                } else if (op < 65) {
                    Bytes k = randomKey(rnd);
                    long from = randomTime(rnd, streamTime);
                    long to = rnd.nextInt(10) == 0 ? Long.MAX_VALUE : from + rnd.nextInt(200_000) - 20_000;
                    boolean forward = rnd.nextBoolean();
                    List<String> expected = values(forward ? ref.fetch(k, from, to) : ref.backwardFetch(k, from, to));
                    List<String> actual = values(forward ? bloom.fetch(k, from, to) : bloom.backwardFetch(k, from, to));
                    assertSameList(expected, actual, what + (forward ? " fetch " : " backwardFetch ") + k + " " + from
                            + ".." + to);
                } else if (op < 80) {
                    Bytes kf = rnd.nextInt(5) == 0 ? null : randomKey(rnd);
                    Bytes kt = rnd.nextInt(5) == 0 ? null : randomKey(rnd);
                    long from = randomTime(rnd, streamTime);
                    long to = from + rnd.nextInt(200_000) - 20_000;
                    boolean forward = rnd.nextBoolean();
                    compareRange(forward ? ref.fetch(kf, kt, from, to) : ref.backwardFetch(kf, kt, from, to),
                            forward ? bloom.fetch(kf, kt, from, to) : bloom.backwardFetch(kf, kt, from, to), forward,
                            what + " range " + kf + ".." + kt + " " + from + ".." + to);
                } else if (op < 90) {
                    long from = randomTime(rnd, streamTime);
                    long to = from + rnd.nextInt(200_000);
                    boolean forward = rnd.nextBoolean();
                    compareRange(forward ? ref.fetchAll(from, to) : ref.backwardFetchAll(from, to),
                            forward ? bloom.fetchAll(from, to) : bloom.backwardFetchAll(from, to), forward,
                            what + " fetchAll " + from + ".." + to);
                } else if (op < 94) {
                    boolean forward = rnd.nextBoolean();
                    compareRange(forward ? ref.all() : ref.backwardAll(), forward ? bloom.all() : bloom.backwardAll(),
                            forward, what + " all");
                } else if (op < 96) {
                    ReadOnlyWindowStore<Bytes, byte[]> view = bloom.readOnly(IsolationLevel.READ_COMMITTED);
                    assertSameList(committed, sorted(view.all()), what + " READ_COMMITTED all");
                    if (setting) {
                        assertCommittedLikeKafkas(sorted(ref.readOnly(IsolationLevel.READ_COMMITTED).all()),
                                sorted(view.all()), sorted(ref.all()), what);
                    }
                } else if (op < 99 || rnd.nextInt(3) > 0) {
                    offset += 1 + rnd.nextInt(20);
                    bloom.commit(Map.of(CHANGELOG, offset));
                    ref.commit(Map.of(CHANGELOG, offset));
                    committed = sorted(ref.all());
                    assertEquals(0, bloom.approximateNumUncommittedBytes(), what + " uncommitted bytes after a commit");
                } else {
                    Path crashed = dir.resolve("crash-" + crashes++);
                    bloom.settle();
                    StoreHarness.copyState(live, crashed);
                    BloomWindowStore reopened = create.get();
                    reopened.init(StoreHarness.context(crashed.toFile(), guarantee, setting), reopened);
                    try {
                        assertSameList(committed, sorted(reopened.all()), what + " contents after a crash");
                        assertEquals(offset == 0 ? null : offset, reopened.committedOffset(CHANGELOG),
                                what + " committed offset after a crash");
                    } finally {
                        reopened.close();
                    }
                }
                List<Long> ids = bloom.segmentIds();
                if (!ids.isEmpty() && ids.get(0) > lastSegment) {
                    segmentsDropped += (int) (ids.get(0) - lastSegment);
                    lastSegment = ids.get(0);
                }
                assertTrue(ids.size() <= RETENTION / INTERVAL + 2, "live segments " + ids);
            }
            compareRange(ref.all(), bloom.all(), true, "final contents (seed " + seed + ")");
            assertTrue(crashes > 0, "the sequence crashed the store at least once");
            assertTrue(segmentsDropped > 3, "expiry dropped segments: " + segmentsDropped);
            assertEquals(0, bloom.openIterators(), "every iterator closed");
        } finally {
            bloom.close();
            ref.close();
        }
    }

    private static void compareRange(KeyValueIterator<Windowed<Bytes>, byte[]> expected,
                                     KeyValueIterator<Windowed<Bytes>, byte[]> actual, boolean forward, String what) {
        List<KeyValue<Windowed<Bytes>, byte[]>> a = drainWindowed(actual);
        List<String> sortedExpected = new ArrayList<>(render(drainWindowed(expected)));
        List<String> sortedActual = new ArrayList<>(render(a));
        sortedExpected.sort(null);
        sortedActual.sort(null);
        assertSameList(sortedExpected, sortedActual, what);
        // RocksDB's order: segment, then key, then window start (all reversed backwards).
        Comparator<KeyValue<Windowed<Bytes>, byte[]>> order = Comparator
                .<KeyValue<Windowed<Bytes>, byte[]>>comparingLong(kv -> kv.key.window().start() / INTERVAL)
                .thenComparing(kv -> kv.key.key())
                .thenComparingLong(kv -> kv.key.window().start());
        for (int i = 1; i < a.size(); i++) {
            int c = order.compare(a.get(i - 1), a.get(i));
            assertTrue(forward ? c <= 0 : c >= 0, what + ": out of order at " + i + ": " + render(a.subList(i - 1, i + 1)));
        }
    }

    /**
     * Kafka's transactional in-memory stores expire committed entries by the stream time of
     * uncommitted writes too; BloomStore's committed view is the state of the last commit, expiry
     * included. So BloomStore's view holds Kafka's, and each entry beyond it is one the uncommitted
     * stream time has expired (the live store no longer shows it).
     */
    static void assertCommittedLikeKafkas(List<String> kafkas, List<String> bloomStores, List<String> live,
                                          String what) {
        assertTrue(bloomStores.containsAll(kafkas), what + " READ_COMMITTED holds Kafka's view");
        for (String e : bloomStores) {
            assertTrue(kafkas.contains(e) || !live.contains(e), what + " READ_COMMITTED shows " + e
                    + ", which Kafka's view lacks though it is not expired");
        }
    }

    /** The entries rendered and sorted: Kafka's stores order key ranges differently. */
    private static List<String> sorted(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>(render(drainWindowed(it)));
        out.sort(null);
        return out;
    }

    /** assertEquals for long lists: the message names the first difference, not both lists. */
    static void assertSameList(List<String> expected, List<String> actual, String what) {
        if (expected.equals(actual)) {
            return;
        }
        int i = 0;
        while (i < expected.size() && i < actual.size() && expected.get(i).equals(actual.get(i))) {
            i++;
        }
        throw new AssertionError(what + ": " + expected.size() + " expected, " + actual.size() + " returned; first"
                + " difference at " + i + ": expected " + (i < expected.size() ? expected.get(i) : "nothing")
                + ", returned " + (i < actual.size() ? actual.get(i) : "nothing"));
    }

    private static List<KeyValue<Windowed<Bytes>, byte[]>> drainWindowed(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<KeyValue<Windowed<Bytes>, byte[]>> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                Windowed<Bytes> peek = it.peekNextKey();
                KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                assertEquals(peek, kv.key, "peekNextKey");
                out.add(kv);
            }
        }
        return out;
    }

    private static List<String> render(List<KeyValue<Windowed<Bytes>, byte[]>> kvs) {
        return kvs.stream().map(kv -> kv.key.key() + "@" + kv.key.window().start() + "-" + kv.key.window().end() + "="
                + Bytes.wrap(kv.value)).toList();
    }

    private static List<String> values(WindowStoreIterator<byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                Long peek = it.peekNextKey();
                KeyValue<Long, byte[]> kv = it.next();
                assertEquals(peek, kv.key);
                out.add(kv.key + "=" + Bytes.wrap(kv.value));
            }
        }
        return out;
    }

    private static long randomTime(Random rnd, long streamTime) {
        long t = Math.max(0, streamTime - rnd.nextInt((int) RETENTION + 60_000));
        return rnd.nextBoolean() ? t - t % 1000 : t;
    }

    static Bytes randomKey(Random rnd) {
        byte[] k = new byte[rnd.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return Bytes.wrap(k);
    }

    static byte[] randomValue(Random rnd) {
        byte[] v = new byte[1 + rnd.nextInt(30)];
        rnd.nextBytes(v);
        return v;
    }

    static String hex(byte[] v) {
        return v == null ? "null" : Bytes.wrap(v).toString();
    }
}
