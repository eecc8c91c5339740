package io.bloomstore.kafka;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interactive queries at {@code READ_COMMITTED} never see a staged write; at
 * {@code READ_UNCOMMITTED} they see the stream thread's writes. Checked through Kafka's own store
 * wrappers (metered, with serdes), as IQv1 reaches the stores ({@code readOnly(level)}, which
 * {@code default.interactive.query.isolation.level} selects) and as IQv2 does (the query's
 * {@link QueryConfig}, the per-query override), for key-value, window and session stores; IQv2
 * position bounds at {@code READ_COMMITTED} hold against the committed position. A reader thread
 * querying at {@code READ_COMMITTED} while the stream thread writes transactions sees whole commits
 * only.
 */
class QueryIsolationTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("changelog", 0);

    @TempDir
    Path dir;

    private MockProcessorContext<Object, Object> processor;

    private StateStoreContext context() {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "iq");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        processor = new MockProcessorContext<>(p, new TaskId(0, 0), dir.toFile());
        return processor.getStateStoreContext();
    }

    @Test
    void keyValueQueriesHonourTheIsolationLevel() {
        KeyValueStore<String, Long> store = Stores.keyValueStoreBuilder(
                        new BloomStoreSupplier("kv", StoreHarness.SMALL, DslStoreFormat.PLAIN), Serdes.String(), Serdes.Long())
                .withLoggingDisabled().withCachingDisabled().build();
        store.init(context(), store);
        try {
            processor.setRecordMetadata("input", 0, 1L);
            store.put("a", 1L);
            store.commit(Map.of(CHANGELOG, 1L));
            processor.setRecordMetadata("input", 0, 2L);
            store.put("a", 2L);
            store.put("b", 3L);

            ReadOnlyKeyValueStore<String, Long> committed = store.readOnly(IsolationLevel.READ_COMMITTED);
            assertEquals(1L, committed.get("a"));
            assertNull(committed.get("b"));
            assertEquals(List.of("a=1"), drain(committed.all()));
            assertEquals(List.of("a=1"), drain(committed.reverseRange("a", "z")));
            assertEquals(List.of("a=1"), drain(committed.prefixScan("", Serdes.String().serializer())));
            ReadOnlyKeyValueStore<String, Long> uncommitted = store.readOnly(IsolationLevel.READ_UNCOMMITTED);
            assertEquals(2L, uncommitted.get("a"));
            assertEquals(List.of("a=2", "b=3"), drain(uncommitted.all()));

            // IQv2, the level per query; position bounds against the committed position.
            assertEquals(1L, queryKey(store, "a", PositionBound.unbounded(), IsolationLevel.READ_COMMITTED).getResult());
            assertEquals(2L, queryKey(store, "a", PositionBound.unbounded(), IsolationLevel.READ_UNCOMMITTED).getResult());
            PositionBound atUncommitted = PositionBound.at(Position.emptyPosition().withComponent("input", 0, 2L));
            QueryResult<Long> tooNew = queryKey(store, "a", atUncommitted, IsolationLevel.READ_COMMITTED);
            assertEquals(FailureReason.NOT_UP_TO_BOUND, tooNew.getFailureReason(), tooNew.toString());
            assertEquals(2L, queryKey(store, "a", atUncommitted, IsolationLevel.READ_UNCOMMITTED).getResult());

            store.commit(Map.of(CHANGELOG, 2L));
            assertEquals(List.of("a=2", "b=3"), drain(committed.all()), "a view follows the commits");
            assertEquals(2L, queryKey(store, "a", atUncommitted, IsolationLevel.READ_COMMITTED).getResult());
        } finally {
            store.close();
        }
    }

    @Test
    void windowAndSessionQueriesHonourTheIsolationLevel() {
        WindowStore<String, Long> windows = Stores.windowStoreBuilder(BloomStores.windowStore("w",
                        Duration.ofMinutes(10), Duration.ofMinutes(1), false, StoreHarness.SMALL, DslStoreFormat.PLAIN),
                Serdes.String(), Serdes.Long()).withLoggingDisabled().withCachingDisabled().build();
        SessionStore<String, Long> sessions = Stores.sessionStoreBuilder(BloomStores.persistentSessionStore("s",
                Duration.ofMinutes(10), StoreHarness.SMALL), Serdes.String(), Serdes.Long())
                .withLoggingDisabled().withCachingDisabled().build();
        StateStoreContext context = context();
        windows.init(context, windows);
        sessions.init(context, sessions);
        try {
            processor.setRecordMetadata("input", 0, 1L);
            windows.put("a", 1L, 60_000);
            sessions.put(new Windowed<>("a", new SessionWindow(0, 60_000)), 1L);
            windows.commit(Map.of(CHANGELOG, 1L));
            sessions.commit(Map.of(CHANGELOG, 1L));
            processor.setRecordMetadata("input", 0, 2L);
            windows.put("a", 2L, 60_000);
            windows.put("a", 5L, 120_000);
            sessions.put(new Windowed<>("a", new SessionWindow(0, 60_000)), 2L);
            sessions.put(new Windowed<>("b", new SessionWindow(0, 60_000)), 5L);

            var committedWindows = windows.readOnly(IsolationLevel.READ_COMMITTED);
            assertEquals(1L, committedWindows.fetch("a", 60_000));
            assertNull(committedWindows.fetch("a", 120_000));
            assertEquals(List.of("60000=1"), drainWindow(committedWindows.fetch("a", Instant.EPOCH,
                    Instant.ofEpochMilli(200_000))));
            assertEquals(List.of("a@60000=1"), drainWindowed(committedWindows.all()));
            assertEquals(List.of("60000=2", "120000=5"), drainWindow(windows.readOnly(IsolationLevel.READ_UNCOMMITTED)
                    .fetch("a", Instant.EPOCH, Instant.ofEpochMilli(200_000))));
            QueryResult<WindowStoreIterator<Long>> q = windows.query(WindowKeyQuery.withKeyAndWindowStartRange("a",
                            Instant.EPOCH, Instant.ofEpochMilli(200_000)), PositionBound.unbounded(),
                    new QueryConfig(false, IsolationLevel.READ_COMMITTED));
            assertTrue(q.isSuccess(), q.toString());
            assertEquals(List.of("60000=1"), drainWindow(q.getResult()));

            var committedSessions = sessions.readOnly(IsolationLevel.READ_COMMITTED);
            assertEquals(1L, committedSessions.fetchSession("a", 0, 60_000));
            assertNull(committedSessions.fetchSession("b", 0, 60_000));
            assertEquals(List.of("a@0-60000=1"), drainSessions(committedSessions.fetch("a", "z")));
            assertEquals(List.of("a@0-60000=2", "b@0-60000=5"),
                    drainSessions(sessions.readOnly(IsolationLevel.READ_UNCOMMITTED).fetch("a", "z")));

            windows.commit(Map.of(CHANGELOG, 2L));
            sessions.commit(Map.of(CHANGELOG, 2L));
            assertEquals(List.of("60000=2", "120000=5"), drainWindow(windows.readOnly(IsolationLevel.READ_COMMITTED)
                    .fetch("a", Instant.EPOCH, Instant.ofEpochMilli(200_000))));
            assertEquals(List.of("a@0-60000=2", "b@0-60000=5"),
                    drainSessions(sessions.readOnly(IsolationLevel.READ_COMMITTED).fetch("a", "z")));
        } finally {
            windows.close();
            sessions.close();
        }
    }

    /**
     * The stream thread writes transaction n as the value n into 20 keys, then commits; a query
     * thread scans at {@code READ_COMMITTED} meanwhile. Every scan must hold all 20 keys with one
     * value (a commit is one atomic batch), never a value of a transaction whose commit had not
     * started when the scan ended, and never go back.
     */
    @Test
    void aQueryThreadAtReadCommittedSeesWholeCommitsOnly() throws Exception {
        KeyValueStore<Bytes, byte[]> store = new BloomStoreSupplier("tx", StoreHarness.SMALL, DslStoreFormat.PLAIN).get();
        store.init(context(), store);
        int keys = 20;
        int transactions = 400;
        List<KeyValue<Bytes, byte[]>> first = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            first.add(KeyValue.pair(key(k), value(0)));
        }
        store.putAll(first);
        store.commit(Map.of(CHANGELOG, 0L));
        AtomicLong commitStarted = new AtomicLong(0);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong scans = new AtomicLong();
        Thread reader = new Thread(() -> {
            long seen = 0;
            ReadOnlyKeyValueStore<Bytes, byte[]> view = store.readOnly(IsolationLevel.READ_COMMITTED);
            while (!done.get() && failure.get() == null) {
                List<Long> values = new ArrayList<>();
                try (KeyValueIterator<Bytes, byte[]> it = view.all()) {
                    it.forEachRemaining(kv -> values.add(Long.parseLong(new String(kv.value))));
                }
                long committedNow = commitStarted.get();
                if (values.size() != keys || values.stream().distinct().count() != 1) {
                    failure.set("a scan saw " + values);
                } else if (values.get(0) > committedNow || values.get(0) < seen) {
                    failure.set("a scan saw transaction " + values.get(0) + " with " + committedNow
                            + " committed and " + seen + " seen before");
                } else {
                    seen = values.get(0);
                }
                Long got = Long.parseLong(new String(view.get(key(keys - 1))));
                if (got > commitStarted.get()) {
                    failure.set("a get saw uncommitted transaction " + got);
                }
                scans.incrementAndGet();
            }
        });
        reader.start();
        try {
            for (long n = 1; n <= transactions && failure.get() == null; n++) {
                for (int k = 0; k < keys; k++) {
                    store.put(key(k), value(n));
                }
                commitStarted.set(n);
                store.commit(Map.of(CHANGELOG, n));
            }
        } finally {
            done.set(true);
            reader.join();
            store.close();
        }
        assertNull(failure.get());
        assertTrue(scans.get() > 0, "the reader scanned");
        assertFalse(reader.isAlive());
        System.out.println("QueryIsolationTest: " + scans.get() + " READ_COMMITTED scans during " + transactions
                + " transactions");
    }

    /**
     * As {@link #aQueryThreadAtReadCommittedSeesWholeCommitsOnly} for a window store whose 20 keys
     * lie in two time segments: a commit is one batch across the segments' keyspaces and a
     * committed scan reads them all at one snapshot, so every scan holds one transaction's value.
     */
    @Test
    void aWindowScanAtReadCommittedSeesWholeCommitsAcrossSegments() throws Exception {
        WindowStore<String, Long> windows = Stores.windowStoreBuilder(BloomStores.windowStore("wtx",
                        Duration.ofMinutes(10), Duration.ofMinutes(1), false, StoreHarness.SMALL, DslStoreFormat.PLAIN),
                Serdes.String(), Serdes.Long()).withLoggingDisabled().withCachingDisabled().build();
        windows.init(context(), windows);
        int keys = 20;
        int transactions = 300;
        AtomicLong commitStarted = new AtomicLong(0);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong scans = new AtomicLong();
        for (int k = 0; k < keys; k++) {
            windows.put("k" + k, 0L, k * 25_000L);   // windows from 0 to 475 s: segments 0 and 1 (300 s each)
        }
        windows.commit(Map.of(CHANGELOG, 0L));
        Thread reader = new Thread(() -> {
            long seen = 0;
            var view = windows.readOnly(IsolationLevel.READ_COMMITTED);
            while (!done.get() && failure.get() == null) {
                List<Long> values = new ArrayList<>();
                try (var it = view.all()) {
                    it.forEachRemaining(kv -> values.add(kv.value));
                }
                long committedNow = commitStarted.get();
                if (values.size() != keys || values.stream().distinct().count() != 1) {
                    failure.set("a scan saw " + values);
                } else if (values.get(0) > committedNow || values.get(0) < seen) {
                    failure.set("a scan saw transaction " + values.get(0) + " with " + committedNow
                            + " committed and " + seen + " seen before");
                } else {
                    seen = values.get(0);
                }
                scans.incrementAndGet();
            }
        });
        reader.start();
        try {
            for (long n = 1; n <= transactions && failure.get() == null; n++) {
                for (int k = 0; k < keys; k++) {
                    windows.put("k" + k, n, k * 25_000L);
                }
                commitStarted.set(n);
                windows.commit(Map.of(CHANGELOG, n));
            }
        } finally {
            done.set(true);
            reader.join();
            windows.close();
        }
        assertNull(failure.get());
        assertTrue(scans.get() > 0, "the reader scanned");
        System.out.println("QueryIsolationTest: " + scans.get() + " READ_COMMITTED window scans during "
                + transactions + " transactions over two segments");
    }

    /**
     * A query thread scanning at {@code READ_UNCOMMITTED} while the stream thread writes: every
     * scan holds every write made before it opened, also while the first scan makes the buffer's
     * sorted map (a copy of its hash map) as writes go on. 40 fresh stores, 3,000 writes each.
     */
    @Test
    void aQueryThreadAtReadUncommittedSeesEveryEarlierWrite() throws Exception {
        for (int round = 0; round < 40; round++) {
            KeyValueStore<Bytes, byte[]> store = new BloomStoreSupplier("ru" + round, StoreHarness.SMALL,
                    DslStoreFormat.PLAIN).get();
            store.init(context(), store);
            AtomicLong written = new AtomicLong();
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<String> failure = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                ReadOnlyKeyValueStore<Bytes, byte[]> view = store.readOnly(IsolationLevel.READ_UNCOMMITTED);
                while (!done.get() && failure.get() == null) {
                    long before = written.get();
                    long seen = 0;
                    try (KeyValueIterator<Bytes, byte[]> it = view.all()) {
                        while (it.hasNext()) {
                            if (Long.parseLong(new String(it.next().value)) < before) {
                                seen++;
                            }
                        }
                    }
                    if (seen != before) {
                        failure.set("a scan saw " + seen + " of the " + before + " writes made before it");
                    }
                }
            });
            reader.start();
            try {
                for (int i = 0; i < 3000 && failure.get() == null; i++) {
                    store.put(Bytes.wrap(String.format("k%06d", i * 7919 % 3000).getBytes()), value(i));
                    written.set(i + 1);
                }
            } finally {
                done.set(true);
                reader.join();
                store.close();
            }
            assertNull(failure.get(), "round " + round);
        }
    }

    private <V> QueryResult<V> queryKey(KeyValueStore<String, V> store, String key, PositionBound bound,
                                        IsolationLevel level) {
        return store.query(KeyQuery.withKey(key), bound, new QueryConfig(false, level));
    }

    private static Bytes key(int k) {
        return Bytes.wrap(("key-" + (char) ('a' + k)).getBytes());
    }

    private static byte[] value(long n) {
        return Long.toString(n).getBytes();
    }

    private static List<String> drain(KeyValueIterator<String, Long> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(kv.key + "=" + kv.value));
        }
        return out;
    }

    private static List<String> drainWindow(WindowStoreIterator<Long> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(kv.key + "=" + kv.value));
        }
        return out;
    }

    private static List<String> drainWindowed(KeyValueIterator<Windowed<String>, Long> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value));
        }
        return out;
    }

    private static List<String> drainSessions(KeyValueIterator<Windowed<String>, Long> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(kv.key.key() + "@" + kv.key.window().start() + "-"
                    + kv.key.window().end() + "=" + kv.value));
        }
        return out;
    }
}
