package io.bloomstore.kafka;

import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static io.bloomstore.kafka.StoreHarness.drain;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lifecycle, persistence, position, interactive queries and restore of one BloomStore-backed Kafka store. */
class BloomKeyValueStoreTest {
    @TempDir
    Path dir;

    private static Bytes k(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void persistentInTaskStateDirAndSurvivesReopen() {
        KeyValueStore<Bytes, byte[]> store = StoreHarness.init(BloomStores.persistentKeyValueStore("kv").get(), dir.toFile());
        assertTrue(store.persistent());
        assertTrue(store.isOpen());
        assertEquals("kv", store.name());
        assertTrue(Files.isDirectory(dir.resolve("bloomstore").resolve("kv")), "store directory under the state dir");
        store.put(k("a"), v("1"));
        store.put(k(""), v("empty key"));
        store.putAll(List.of(KeyValue.pair(k("b"), v("2")), KeyValue.pair(k("a"), null), KeyValue.pair(k("c"), v("3"))));
        store.commit(Map.of());   // Kafka commits before a clean close; a close drops uncommitted writes
        store.close();
        assertFalse(store.isOpen());
        assertThrows(InvalidStateStoreException.class, () -> store.get(k("b")));

        KeyValueStore<Bytes, byte[]> reopened = StoreHarness.init(BloomStores.persistentKeyValueStore("kv").get(), dir.toFile());
        assertNull(reopened.get(k("a")), "tombstone in a putAll deletes");
        assertArrayEquals(v("2"), reopened.get(k("b")));
        assertArrayEquals(v("empty key"), reopened.get(k("")));
        assertEquals(List.of("=empty key", "b=2", "c=3"), strings(reopened.all()));
        reopened.close();
    }

    @Test
    void openIteratorsAreClosedWithTheStore() {
        KeyValueStore<Bytes, byte[]> store = StoreHarness.init(BloomStores.persistentKeyValueStore("it").get(), dir.toFile());
        for (int i = 0; i < 10; i++) {
            store.put(k("k" + i), v("v" + i));
        }
        KeyValueIterator<Bytes, byte[]> it = store.all();
        assertEquals(k("k0"), it.next().key);
        KeyValueIterator<Bytes, byte[]> rev = store.reverseRange(k("k2"), k("k5"));
        assertEquals(k("k5"), rev.peekNextKey());
        store.close();
        assertThrows(InvalidStateStoreException.class, it::hasNext);
        assertThrows(InvalidStateStoreException.class, rev::next);
        it.close();
    }

    @Test
    void iteratorsSeeASnapshotAndReturnTheCallersArrays() {
        KeyValueStore<Bytes, byte[]> store = StoreHarness.init(BloomStores.persistentKeyValueStore("snap").get(), dir.toFile());
        byte[] key = v("x");
        byte[] value = v("1");
        store.put(Bytes.wrap(key), value);
        key[0] = 'y';
        assertArrayEquals(v("1"), store.get(k("x")), "a key array reused by the caller changes nothing");
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            store.put(k("z"), v("2"));
            assertEquals(List.of("x=1"), strings(it));
        }
        byte[] got = store.get(k("x"));
        got[0] = '9';
        assertArrayEquals(v("1"), store.get(k("x")));
        store.close();
    }

    @Test
    void positionIsTrackedAndKeptAcrossReopen() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "pos");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        MockProcessorContext<Object, Object> ctx = new MockProcessorContext<>(props, new TaskId(0, 1), dir.toFile());
        KeyValueStore<Bytes, byte[]> store = BloomStores.persistentKeyValueStore("pos").get();
        store.init(ctx.getStateStoreContext(), store);
        ctx.setRecordMetadata("input", 1, 41L);
        store.put(k("a"), v("1"));
        ctx.setRecordMetadata("input", 1, 42L);
        store.put(k("b"), v("2"));
        Position expected = Position.emptyPosition().withComponent("input", 1, 42L);
        assertEquals(expected, store.getPosition());
        store.commit(Map.of());
        store.close();

        KeyValueStore<Bytes, byte[]> reopened = BloomStores.persistentKeyValueStore("pos").get();
        reopened.init(ctx.getStateStoreContext(), reopened);
        assertEquals(expected, reopened.getPosition());

        QueryResult<byte[]> hit = reopened.query(KeyQuery.withKey(k("b")),
                PositionBound.at(Position.emptyPosition().withComponent("input", 1, 42L)), new QueryConfig(false));
        assertTrue(hit.isSuccess(), hit.toString());
        assertArrayEquals(v("2"), hit.getResult());
        assertEquals(expected, hit.getPosition());

        QueryResult<byte[]> ahead = reopened.query(KeyQuery.withKey(k("b")),
                PositionBound.at(Position.emptyPosition().withComponent("input", 1, 99L)), new QueryConfig(false));
        assertFalse(ahead.isSuccess(), "a bound past the store's position is not served");

        QueryResult<KeyValueIterator<Bytes, byte[]>> range = reopened.query(RangeQuery.withRange(k("a"), k("b")),
                PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(range.isSuccess(), range.toString());
        assertEquals(List.of("a=1", "b=2"), strings(range.getResult()));
        reopened.close();
    }

    @Test
    void oversizedKeysAndValuesAreRefusedAtPutAndLoseNothing() {
        KeyValueStore<Bytes, byte[]> store = StoreHarness.init(new BloomStoreSupplier("big",
                io.bloomstore.core.StoreOptions.builder().maxKeyBytes(16).maxValueBytes(32).build(), DslStoreFormat.PLAIN).get(),
                dir.toFile());
        store.put(k("kept"), v("value"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> store.put(Bytes.wrap(new byte[16]), v("x")));
        assertTrue(e.getMessage().contains("maximum of 15"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> store.putAll(List.of(KeyValue.pair(k("a"), v("1")),
                KeyValue.pair(k("b"), new byte[33]))));
        assertNull(store.get(k("a")), "nothing of a refused putAll is written");
        store.commit(Map.of(new TopicPartition("t", 0), 1L));
        assertArrayEquals(v("value"), store.get(k("kept")));
        store.close();
    }

    @Test
    void committedOffsetsAreKeptInTheStore() {
        KeyValueStore<Bytes, byte[]> store = StoreHarness.init(BloomStores.persistentKeyValueStore("off").get(), dir.toFile());
        assertTrue(store.managesOffsets());
        TopicPartition p0 = new TopicPartition("app-off-changelog", 0);
        TopicPartition p1 = new TopicPartition("app-off-changelog", 1);
        assertNull(store.committedOffset(p0));
        store.put(k("a"), v("1"));
        store.commit(Map.of(p0, 17L, p1, 4L));
        store.close();
        KeyValueStore<Bytes, byte[]> reopened = StoreHarness.init(BloomStores.persistentKeyValueStore("off").get(), dir.toFile());
        assertEquals(17L, reopened.committedOffset(p0));
        assertEquals(4L, reopened.committedOffset(p1));
        assertEquals(List.of("a=1"), strings(reopened.all()), "offsets are not user keys");
        Map<TopicPartition, Long> dropP1 = new java.util.HashMap<>();
        dropP1.put(p1, null);
        reopened.commit(dropP1);
        assertNull(reopened.committedOffset(p1));
        assertEquals(17L, reopened.committedOffset(p0));
        reopened.commit(Map.of());
        assertNull(reopened.committedOffset(p0), "an empty commit wipes the offsets");
        assertArrayEquals(v("1"), reopened.get(k("a")));
        reopened.close();
    }

    @Test
    void restoreBatchesApplyPutsAndTombstones() {
        BloomKeyValueStore store = (BloomKeyValueStore) StoreHarness.init(
                BloomStores.persistentKeyValueStore("restore").get(), dir.toFile());
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            batch.add(new ConsumerRecord<>("changelog", 0, i, v("key" + (i % 300)), v("value" + i)));
        }
        batch.add(new ConsumerRecord<>("changelog", 0, 1000, v("key7"), null));
        store.restoreBatch(batch);
        assertNull(store.get(k("key7")));
        assertArrayEquals(v("value999"), store.get(k("key99")));
        assertEquals(299, drain(store.all()).size());
        assertTrue(store.stats().userBytesWritten() > 0, "restored batches reached the BloomStore");
        store.close();
    }

    @Test
    void timestampedSupplierGivesATimestampedBytesStore() {
        KeyValueStore<Bytes, byte[]> ts = BloomStores.persistentTimestampedKeyValueStore("ts").get();
        KeyValueStore<Bytes, byte[]> plain = BloomStores.persistentKeyValueStore("plain").get();
        assertInstanceOf(TimestampedBytesStore.class, ts);
        assertFalse(plain instanceof TimestampedBytesStore);
        assertEquals("bloomstore", BloomStores.persistentKeyValueStore("x").metricsScope());
        assertThrows(IllegalArgumentException.class, () -> BloomStores.persistentKeyValueStore("a/b"));
        assertThrows(IllegalArgumentException.class, () -> BloomStores.persistentKeyValueStore(""));
        assertThrows(NullPointerException.class, () -> BloomStores.persistentKeyValueStore(null));
    }

    @Test
    void configReadsStoreOptionsAndRejectsBadValues() {
        assertEquals(1 << 20, BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.MEMTABLE_BYTES, "1048576"))
                .memtableBytes());
        assertEquals(12.0, BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.BITS_PER_KEY, 12)).bitsPerKey());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.MEMTABLE_BYTES, "lots")));
        assertTrue(e.getMessage().contains(BloomStoreConfig.MEMTABLE_BYTES), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.MEMTABLE_BYTES, "10")));
    }

    private static List<String> strings(KeyValueIterator<Bytes, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                out.add(new String(kv.key.get(), StandardCharsets.UTF_8) + "=" + new String(kv.value, StandardCharsets.UTF_8));
            }
        }
        return out;
    }

}
