package io.bloomstore.kafka;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interactive queries racing the stream thread's close, for every store type: two query threads
 * iterate (full scans, ranges, one-key fetches) and read single keys, a third closes their
 * iterators from outside at random, while the test thread closes the store; many rounds. Every
 * exception a query thread sees must be an {@link InvalidStateStoreException} (the store or the
 * iterator is closed), never a {@code NullPointerException} or a BloomStore exception, and no read
 * may return a value that was never written. Rounds: {@code -Dquery.rounds=N} (default 6 per store
 * type); seed {@code -Dquery.seed=N} (printed).
 */
class QuerySafetyTest {
    private static final int KEYS = 400;

    @TempDir
    Path dir;

    enum Kind {
        KEY_VALUE, TIMESTAMPED_KEY_VALUE, HEADERS_KEY_VALUE, WINDOW, TIMESTAMPED_WINDOW, HEADERS_WINDOW, SESSION,
        HEADERS_SESSION
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void queriesRacingCloseSeeOnlyInvalidStateStoreException(Kind kind) throws Exception {
        long seed = Long.getLong("query.seed", 20261125L) + kind.ordinal();
        int rounds = Integer.getInteger("query.rounds", 6);
        System.out.println("QuerySafetyTest " + kind + " seed=" + seed + " rounds=" + rounds);
        Random rnd = new Random(seed);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        AtomicLong reads = new AtomicLong();
        for (int round = 0; round < rounds; round++) {
            StateStore store = StoreHarness.initStore(create(kind), dir.resolve(kind + "-" + round).toFile());
            fill(store);
            List<Throwable> unexpected = new ArrayList<>();
            AtomicReference<KeyValueIterator<?, byte[]>> shared = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(2);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long threadSeed = rnd.nextLong();
                threads.add(new Thread(() -> query(store, new Random(threadSeed), shared, started, unexpected, seen,
                        reads), "query-" + t));
            }
            Thread closer = new Thread(() -> {
                while (store.isOpen()) {
                    KeyValueIterator<?, byte[]> it = shared.getAndSet(null);
                    if (it != null) {
                        it.close();
                    }
                    Thread.onSpinWait();
                }
            }, "iterator-closer");
            threads.forEach(Thread::start);
            closer.start();
            started.await();
            Thread.sleep(rnd.nextInt(15));
            store.close();
            for (Thread th : threads) {
                th.join(30_000);
                assertTrue(!th.isAlive(), th.getName() + " still running after the store closed");
            }
            closer.join(30_000);
            synchronized (unexpected) {
                if (!unexpected.isEmpty()) {
                    AssertionError e = new AssertionError(kind + " round " + round + " (seed " + seed + "): "
                            + unexpected.size() + " unexpected exceptions, first: " + unexpected.get(0));
                    e.initCause(unexpected.get(0));
                    throw e;
                }
            }
        }
        assertTrue(reads.get() > 0, "the query threads read entries before the closes");
        System.out.println("QuerySafetyTest " + kind + ": " + reads.get() + " entries read, outcomes " + seen);
    }

    /**
     * The scenario through Kafka's own store layers: query threads iterate a DSL table's
     * store ({@code TopologyTestDriver#getTimestampedKeyValueStore}) while the driver closes.
     */
    @Test
    void queriesThroughKafkasStoreLayersWhileTheDriverCloses() throws Exception {
        int rounds = Integer.getInteger("query.rounds", 6);
        for (int round = 0; round < rounds; round++) {
            Properties p = new Properties();
            p.put(StreamsConfig.APPLICATION_ID_CONFIG, "query-safety");
            p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
            p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("driver-" + round).toString());
            p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
            p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, BloomStoreDslStoreSuppliers.class);
            p.put(BloomStoreConfig.MEMTABLE_BYTES, 16 * 1024);
            StreamsBuilder builder = new StreamsBuilder();
            builder.table("t", Consumed.with(Serdes.String(), Serdes.String()), Materialized.as("table"));
            TopologyTestDriver driver = new TopologyTestDriver(builder.build(), p);
            TestInputTopic<String, String> in = driver.createInputTopic("t", Serdes.String().serializer(),
                    Serdes.String().serializer());
            for (int i = 0; i < 2000; i++) {
                in.pipeInput("k" + i, "v" + i);
            }
            KeyValueStore<String, ValueAndTimestamp<String>> table = driver.getTimestampedKeyValueStore("table");
            List<Throwable> unexpected = new ArrayList<>();
            AtomicLong reads = new AtomicLong();
            AtomicBoolean closed = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(2);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                threads.add(new Thread(() -> {
                    started.countDown();
                    while (true) {
                        try (KeyValueIterator<String, ValueAndTimestamp<String>> it = table.all()) {
                            while (it.hasNext()) {
                                assertTrue(it.next().value.value().startsWith("v"));
                                reads.incrementAndGet();
                            }
                        } catch (InvalidStateStoreException e) {
                            if (closed.get()) {
                                return;
                            }
                        } catch (Throwable e) {
                            synchronized (unexpected) {
                                unexpected.add(e);
                            }
                            return;
                        }
                    }
                }, "driver-query-" + t));
            }
            threads.forEach(Thread::start);
            started.await();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (reads.get() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            Thread.sleep(round);
            closed.set(true);
            driver.close();
            for (Thread th : threads) {
                th.join(30_000);
                assertTrue(!th.isAlive(), th.getName() + " still running after the driver closed");
            }
            synchronized (unexpected) {
                if (!unexpected.isEmpty()) {
                    AssertionError e = new AssertionError("round " + round + ": " + unexpected.size()
                            + " unexpected exceptions, first: " + unexpected.get(0));
                    e.initCause(unexpected.get(0));
                    throw e;
                }
            }
            assertTrue(reads.get() > 0, "round " + round + ": the query threads read before the close");
        }
    }

    /** Queries until the store is closed and an operation says so. */
    private static void query(StateStore store, Random rnd, AtomicReference<KeyValueIterator<?, byte[]>> shared,
                              CountDownLatch started, List<Throwable> unexpected, Map<String, Integer> seen,
                              AtomicLong reads) {
        started.countDown();
        while (true) {
            try {
                KeyValueIterator<?, byte[]> it = open(store, rnd);
                if (rnd.nextInt(3) == 0) {
                    shared.set(it);
                }
                try (it) {
                    while (it.hasNext()) {
                        check(it.next().value);
                        reads.incrementAndGet();
                    }
                }
                byte[] v = point(store, rnd);
                if (v != null) {
                    check(v);
                }
            } catch (InvalidStateStoreException e) {
                seen.merge(e.getMessage().contains("iterator") ? "iterator closed" : "store closed", 1, Integer::sum);
                if (!store.isOpen()) {
                    return;
                }
            } catch (Throwable e) {
                synchronized (unexpected) {
                    unexpected.add(e);
                }
                return;
            }
        }
    }

    /** Every value written is 8 bytes holding its key's number: anything else was never written. */
    private static void check(byte[] value) {
        assertEquals(Long.BYTES, value.length, "value length");
        long n = ByteBuffer.wrap(value).getLong();
        assertTrue(n >= 0 && n < KEYS, "value " + n);
    }

    private static Bytes key(int i) {
        return Bytes.wrap(("key-" + i).getBytes());
    }

    private static byte[] value(int i) {
        return ByteBuffer.allocate(Long.BYTES).putLong(i).array();
    }

    private static StateStore create(Kind kind) {
        Duration retention = Duration.ofMinutes(10);
        Duration size = Duration.ofMinutes(1);
        return switch (kind) {
            case KEY_VALUE -> new BloomStoreSupplier("q", StoreHarness.SMALL, DslStoreFormat.PLAIN).get();
            case TIMESTAMPED_KEY_VALUE -> new BloomStoreSupplier("q", StoreHarness.SMALL, DslStoreFormat.TIMESTAMPED).get();
            case HEADERS_KEY_VALUE -> new BloomStoreSupplier("q", StoreHarness.SMALL, DslStoreFormat.HEADERS).get();
            case WINDOW -> BloomStores.windowStore("q", retention, size, false, StoreHarness.SMALL,
                    DslStoreFormat.PLAIN).get();
            case TIMESTAMPED_WINDOW -> BloomStores.windowStore("q", retention, size, false, StoreHarness.SMALL,
                    DslStoreFormat.TIMESTAMPED).get();
            case HEADERS_WINDOW -> BloomStores.windowStore("q", retention, size, true, StoreHarness.SMALL,
                    DslStoreFormat.HEADERS).get();
            case SESSION -> BloomStores.sessionStore("q", retention, StoreHarness.SMALL, false).get();
            case HEADERS_SESSION -> BloomStores.sessionStore("q", retention, StoreHarness.SMALL, true).get();
        };
    }

    @SuppressWarnings("unchecked")
    private static void fill(StateStore store) {
        for (int i = 0; i < KEYS; i++) {
            long time = (i % 12) * 60_000L;
            if (store instanceof KeyValueStore<?, ?> kv) {
                ((KeyValueStore<Bytes, byte[]>) kv).put(key(i), value(i));
            } else if (store instanceof WindowStore<?, ?> w) {
                ((WindowStore<Bytes, byte[]>) w).put(key(i), value(i), time);
            } else {
                ((SessionStore<Bytes, byte[]>) store).put(new Windowed<>(key(i), new SessionWindow(time, time + 1000)),
                        value(i));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static KeyValueIterator<?, byte[]> open(StateStore store, Random rnd) {
        Bytes k = key(rnd.nextInt(KEYS));
        if (store instanceof KeyValueStore<?, ?> s) {
            KeyValueStore<Bytes, byte[]> kv = (KeyValueStore<Bytes, byte[]>) s;
            return switch (rnd.nextInt(3)) {
                case 0 -> kv.all();
                case 1 -> kv.reverseRange(k, null);
                default -> kv.range(null, k);
            };
        }
        if (store instanceof WindowStore<?, ?> s) {
            WindowStore<Bytes, byte[]> w = (WindowStore<Bytes, byte[]>) s;
            return switch (rnd.nextInt(4)) {
                case 0 -> w.all();
                case 1 -> w.backwardFetchAll(0, Long.MAX_VALUE);
                case 2 -> w.fetch(k, 0, Long.MAX_VALUE);
                default -> w.fetch(null, k, 0, Long.MAX_VALUE);
            };
        }
        SessionStore<Bytes, byte[]> s = (SessionStore<Bytes, byte[]>) store;
        return switch (rnd.nextInt(3)) {
            case 0 -> s.fetch(null, null);
            case 1 -> s.backwardFindSessions(k, 0, Long.MAX_VALUE);
            default -> s.findSessions(0, Long.MAX_VALUE);
        };
    }

    @SuppressWarnings("unchecked")
    private static byte[] point(StateStore store, Random rnd) {
        int i = rnd.nextInt(KEYS);
        long time = (i % 12) * 60_000L;
        if (store instanceof KeyValueStore<?, ?> kv) {
            return ((KeyValueStore<Bytes, byte[]>) kv).get(key(i));
        }
        if (store instanceof WindowStore<?, ?> w) {
            return ((WindowStore<Bytes, byte[]>) w).fetch(key(i), time);
        }
        return ((SessionStore<Bytes, byte[]>) store).fetchSession(key(i), time, time + 1000);
    }
}
