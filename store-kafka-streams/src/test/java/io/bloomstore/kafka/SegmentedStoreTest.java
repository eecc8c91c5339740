package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the contract tests cannot see in the window and session stores: that filters keep absent
 * keys off the disk, that expiry deletes whole segment directories, what survives a reopen
 * (data, stream time, offsets, position), batched restore of Kafka's changelog format, IQv2.
 */
class SegmentedStoreTest {
    /** Small memtables, no block cache: every table read is a counted file read. */
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(16 * 1024).blockSize(512)
            .blockCacheBytes(0).build();
    /**
     * As {@link #OPTIONS}, with compaction outputs cut at 16 KiB: a segment keeps several tables
     * however far its background compactions got when the test counts them (with 8 MiB outputs a
     * compaction that caught up left one table per segment, and the count depended on timing).
     */
    private static final StoreOptions SMALL_TABLES = OPTIONS.toBuilder().targetFileBytes(16 * 1024).build();
    private static final long MINUTE = 60_000;

    @TempDir
    Path dir;

    private BloomWindowStore window(boolean retainDuplicates) {
        return window(retainDuplicates, OPTIONS);
    }

    private BloomWindowStore window(boolean retainDuplicates, StoreOptions options) {
        return (BloomWindowStore) BloomStores.windowStore("w", Duration.ofMinutes(10), Duration.ofMinutes(1),
                retainDuplicates, options, DslStoreFormat.PLAIN).get();
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long sum(List<StoreStats> stats, java.util.function.ToLongFunction<StoreStats> counter) {
        return stats.stream().mapToLong(counter).sum();
    }

    @Test
    void fetchOfAnAbsentKeyReadsNoDataBlock() {
        BloomWindowStore store = StoreHarness.initStore(window(false, SMALL_TABLES), dir.toFile());
        try {
            fillAndProbe(store);
        } finally {
            store.close();
        }
    }

    private void fillAndProbe(BloomWindowStore store) {
        // 3 segments (5-minute interval), several tables each: 6,000 keys per minute window.
        for (int minute = 0; minute < 15; minute++) {
            for (int i = 0; i < 2000; i++) {
                store.put(key("user-" + i), value("v" + i + "@" + minute), minute * MINUTE);
            }
            store.commit(Map.of());
        }
        assertEquals(3, store.segmentIds().size(), "segments " + store.segmentIds());
        long tables = store.segmentStats().stream().mapToLong(s -> s.levels().stream()
                .mapToLong(StoreStats.LevelStats::files).sum()).sum();
        assertTrue(tables >= 6, "tables on disk: " + tables);

        List<StoreStats> before = store.segmentStats();
        for (int i = 0; i < 200; i++) {
            // Between present keys ("user-7" < "user-7-absent" < "user-70"): inside the tables' key ranges.
            try (WindowStoreIterator<byte[]> it = store.fetch(key("user-" + i + "-absent"), 0, Long.MAX_VALUE)) {
                assertFalse(it.hasNext());
            }
        }
        List<StoreStats> after = store.segmentStats();
        long checked = sum(after, StoreStats::prefixChecked) - sum(before, StoreStats::prefixChecked);
        long skipped = sum(after, StoreStats::prefixUseful) - sum(before, StoreStats::prefixUseful);
        long reads = sum(after, StoreStats::dataBlockReads) - sum(before, StoreStats::dataBlockReads);
        // Every table a fetch could read was asked; a table is read only on a false positive of its
        // prefix filter (about 1 in 500 at the default 10 bits per key), one block each.
        assertTrue(checked >= 200, "prefix filters asked: " + checked);
        assertTrue(reads <= checked - skipped, "data blocks read " + reads + " but only " + (checked - skipped)
                + " prefix filter false positives");
        assertTrue(reads <= 1 + checked / 100, "data blocks read for 200 absent keys: " + reads + " (tolerance:"
                + " 1% of the " + checked + " tables asked; the keys are fixed, so the run is deterministic)");

        // The same fetch for present keys does read blocks: the counter above could have moved.
        try (WindowStoreIterator<byte[]> it = store.fetch(key("user-7"), 0, Long.MAX_VALUE)) {
            List<Long> starts = new ArrayList<>();
            it.forEachRemaining(kv -> starts.add(kv.key));
            // Stream time 14 min, retention 10 min: windows from 5 min on are visible.
            assertEquals(10, starts.size());
            assertEquals(5 * MINUTE, starts.get(0));
            assertEquals(14 * MINUTE, starts.get(9));
        }
        assertTrue(sum(store.segmentStats(), StoreStats::dataBlockReads) > sum(after, StoreStats::dataBlockReads));
    }

    @Test
    void expiryDropsWholeSegmentKeyspaces() throws Exception {
        BloomWindowStore store = StoreHarness.initStore(window(false), dir.toFile());
        for (int minute = 0; minute < 40; minute++) {
            for (int i = 0; i < 50; i++) {
                store.put(key("k" + i), value("v" + minute), minute * MINUTE);
            }
            store.commit(Map.of());
        }
        store.flush();
        // Stream time 39 min, retention 10 min: segments from (39 - 10) / 5 = 5 are live.
        assertEquals(List.of(5L, 6L, 7L), store.segmentIds());
        try (Stream<Path> dirs = Files.list(store.directory())) {
            assertEquals(List.of("store"), dirs.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals(List.of("default", "segment-1500000", "segment-1800000", "segment-2100000"),
                store.keyspaces().stream().sorted().toList(), "expired segments' keyspaces are dropped");
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.all()) {
            long oldest = Long.MAX_VALUE;
            int n = 0;
            while (it.hasNext()) {
                oldest = Math.min(oldest, it.next().key.window().start());
                n++;
            }
            assertEquals(30 * MINUTE, oldest, "streamTime - retention + 1 and later only");
            assertEquals(10 * 50, n);
        }
        // A late write into an expired segment is dropped, not written.
        store.put(key("late"), value("x"), 3 * MINUTE);
        assertNull(store.fetch(key("late"), 3 * MINUTE));
        assertEquals(List.of(5L, 6L, 7L), store.segmentIds());
        store.close();
    }

    @Test
    void reopenKeepsDataStreamTimeOffsetsAndPosition() {
        TopicPartition changelog = new TopicPartition("app-w-changelog", 0);
        BloomWindowStore store = StoreHarness.initStore(window(true), dir.toFile());
        store.put(key("a"), value("1"), MINUTE);
        store.put(key("a"), value("2"), MINUTE);
        store.put(key("b"), value("3"), 20 * MINUTE);
        store.commit(Map.of(changelog, 41L));
        store.close();
        assertThrows(org.apache.kafka.streams.errors.InvalidStateStoreException.class, () -> store.fetch(key("b"), 0));

        BloomWindowStore again = StoreHarness.initStore(window(true), dir.toFile());
        assertEquals(41L, again.committedOffset(changelog));
        // Stream time 20 min was kept, so minute 1 stays expired after the reopen.
        try (WindowStoreIterator<byte[]> it = again.fetch(key("a"), 0, Long.MAX_VALUE)) {
            assertFalse(it.hasNext());
        }
        try (WindowStoreIterator<byte[]> it = again.fetch(key("b"), 0, Long.MAX_VALUE)) {
            KeyValue<Long, byte[]> kv = it.next();
            assertEquals(20 * MINUTE, kv.key);
            assertArrayEquals(value("3"), kv.value);
        }
        again.close();
    }

    @Test
    void restoresKafkasChangelogFormatInBatches() {
        BloomWindowStore store = StoreHarness.initStore(window(true), dir.toFile());
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int seq = 1; seq <= 3; seq++) {
            batch.add(changelog(windowKey("k", 2 * MINUTE, seq), value("dup" + seq), batch.size()));
        }
        batch.add(changelog(windowKey("k", 7 * MINUTE, 4), value("later"), batch.size()));
        batch.add(changelog(windowKey("gone", 7 * MINUTE, 5), value("x"), batch.size()));
        batch.add(changelog(windowKey("gone", 7 * MINUTE, 5), null, batch.size()));
        store.restoreBatch(batch);
        List<String> got = new ArrayList<>();
        try (WindowStoreIterator<byte[]> it = store.fetch(key("k"), 0, Long.MAX_VALUE)) {
            it.forEachRemaining(kv -> got.add(kv.key / MINUTE + "=" + new String(kv.value, StandardCharsets.UTF_8)));
        }
        assertEquals(List.of("2=dup1", "2=dup2", "2=dup3", "7=later"), got);
        assertNull(store.fetch(key("gone"), 7 * MINUTE));
        assertEquals(List.of(0L, 1L), store.segmentIds());
        store.close();

        BloomSessionStore sessions = (BloomSessionStore) BloomStores.persistentSessionStore("s",
                Duration.ofMinutes(10), OPTIONS).get();
        StoreHarness.initStore(sessions, dir.resolve("s").toFile());
        ByteBuffer sessionKey = ByteBuffer.allocate(3 + 16).put(value("key")).putLong(5 * MINUTE).putLong(MINUTE);
        sessions.restoreBatch(List.of(changelog(sessionKey.array(), value("agg"), 0)));
        assertArrayEquals(value("agg"), sessions.fetchSession(key("key"), MINUTE, 5 * MINUTE));
        sessions.close();
    }

    @Test
    void interactiveQueriesV2() {
        BloomWindowStore store = StoreHarness.initStore(window(false), dir.toFile());
        store.put(key("a"), value("1"), MINUTE);
        store.put(key("a"), value("2"), 2 * MINUTE);
        store.put(key("b"), value("3"), 2 * MINUTE);
        QueryResult<WindowStoreIterator<byte[]>> byKey = store.query(
                WindowKeyQuery.withKeyAndWindowStartRange(key("a"), Instant.ofEpochMilli(0),
                        Instant.ofEpochMilli(5 * MINUTE)), PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(byKey.isSuccess(), byKey.toString());
        List<Long> starts = new ArrayList<>();
        try (WindowStoreIterator<byte[]> it = byKey.getResult()) {
            it.forEachRemaining(kv -> starts.add(kv.key));
        }
        assertEquals(List.of(MINUTE, 2 * MINUTE), starts);
        QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> range = store.query(
                WindowRangeQuery.withWindowStartRange(Instant.ofEpochMilli(2 * MINUTE),
                        Instant.ofEpochMilli(2 * MINUTE)), PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(range.isSuccess(), range.toString());
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = range.getResult()) {
            it.forEachRemaining(kv -> keys.add(new String(kv.key.key().get(), StandardCharsets.UTF_8)));
        }
        assertEquals(List.of("a", "b"), keys);
        store.close();

        BloomSessionStore sessions = (BloomSessionStore) BloomStores.persistentSessionStore("s",
                Duration.ofMinutes(10), OPTIONS).get();
        StoreHarness.initStore(sessions, dir.resolve("s").toFile());
        sessions.put(new Windowed<>(key("u"), new SessionWindow(0, MINUTE)), value("x"));
        QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> session = sessions.query(
                WindowRangeQuery.withKey(key("u")), PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(session.isSuccess(), session.toString());
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = session.getResult()) {
            assertEquals(new SessionWindow(0, MINUTE), it.next().key.window());
            assertFalse(it.hasNext());
        }
        sessions.close();
    }

    private static byte[] windowKey(String key, long start, int seq) {
        byte[] k = value(key);
        return ByteBuffer.allocate(k.length + 12).put(k).putLong(start).putInt(seq).array();
    }

    private static ConsumerRecord<byte[], byte[]> changelog(byte[] key, byte[] value, long offset) {
        return new ConsumerRecord<>("app-w-changelog", 0, offset, key, value);
    }
}
