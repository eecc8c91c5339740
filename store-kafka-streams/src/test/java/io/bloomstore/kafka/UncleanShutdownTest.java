package io.bloomstore.kafka;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What a store opens to after a crash, per {@link CommitMode}. The crash is a copy of the state
 * directory taken while the store is open.
 *
 * <p>Transactional (exactly_once_v2 with {@code enable.transactional.statestores} on): uncommitted
 * writes never reach the files, so the store opens without {@link TaskCorruptedException}, holding
 * exactly its last commit and that commit's changelog offset: Kafka replays only what follows.
 *
 * <p>Write-through (exactly_once_v2 with the setting off): a store may hold writes of a transaction
 * that never committed (its buffer went out, as at its bound). Like Kafka's RocksDB store, it then
 * refuses to open with {@link TaskCorruptedException}, so Kafka wipes the task's state and restores
 * it from the changelog; after a clean close, or under at-least-once, it opens with its data.
 */
class UncleanShutdownTest {
    @TempDir
    Path dir;

    private static final Bytes KEY = Bytes.wrap(new byte[] {1, 2, 3});
    private static final byte[] VALUE = {9};

    @ParameterizedTest
    @ValueSource(strings = {"key-value", "window", "session"})
    void exactlyOnceRefusesAStoreThatWasNotClosedCleanly(String kind) throws IOException {
        Supplier<StateStore> create = switch (kind) {
            case "key-value" -> () -> new BloomStoreSupplier("s", StoreHarness.SMALL, DslStoreFormat.TIMESTAMPED).get();
            case "window" -> () -> BloomStores.windowStore("s", Duration.ofMinutes(10), Duration.ofMinutes(1), false,
                    StoreHarness.SMALL, DslStoreFormat.TIMESTAMPED).get();
            default -> () -> BloomStores.sessionStore("s", Duration.ofMinutes(10), StoreHarness.SMALL, false).get();
        };
        Path live = dir.resolve("live");
        StateStore store = open(create, live, StreamsConfig.EXACTLY_ONCE_V2);
        write(store);
        store.commit(Map.of(new TopicPartition("changelog", 0), 10L));
        store.flush();   // the buffered writes reach the BloomStore's files, as a bound or an iterator would
        Path crashed = dir.resolve("crashed");
        StoreHarness.copyState(live, crashed);
        store.close();

        TaskCorruptedException e = assertThrows(TaskCorruptedException.class,
                () -> open(create, crashed, StreamsConfig.EXACTLY_ONCE_V2));
        assertEquals(Set.of(new TaskId(0, 0)), e.corruptedTasks());

        // At-least-once takes the same files as they are.
        StateStore alos = open(create, crashed, StreamsConfig.AT_LEAST_ONCE);
        assertNotNull(read(alos));
        alos.close();

        // A clean close: the next exactly-once open keeps the data and offsets.
        StateStore again = open(create, live, StreamsConfig.EXACTLY_ONCE_V2);
        assertArrayEquals(VALUE, read(again));
        assertEquals(10L, again.committedOffset(new TopicPartition("changelog", 0)));
        again.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"key-value", "window", "session"})
    void transactionalStoreOpensAtItsLastCommitWithoutAWipe(String kind) throws IOException {
        Supplier<StateStore> create = supplier(kind);
        Path live = dir.resolve("live");
        StateStore store = create.get();
        store.init(StoreHarness.context(live.toFile(), StreamsConfig.EXACTLY_ONCE_V2, true), store);
        write(store);
        store.commit(Map.of(new TopicPartition("changelog", 0), 10L));
        byte[] committed = read(store);
        writeAnother(store);   // an open transaction: read back by the stream thread, never on disk
        assertArrayEquals(new byte[] {7}, readAnother(store));
        settle(store);
        Path crashed = dir.resolve("crashed");
        StoreHarness.copyState(live, crashed);
        store.close();

        StateStore reopened = create.get();
        reopened.init(StoreHarness.context(crashed.toFile(), StreamsConfig.EXACTLY_ONCE_V2, true), reopened);
        assertArrayEquals(committed, read(reopened), "the committed write survives");
        assertNull(readAnother(reopened), "the uncommitted write is gone");
        assertEquals(10L, reopened.committedOffset(new TopicPartition("changelog", 0)));
        reopened.close();
    }

    /** A write-through run that crashed left uncommitted writes: a transactional run refuses them too. */
    @ParameterizedTest
    @ValueSource(strings = {"key-value", "window", "session"})
    void transactionalRunRefusesTheFilesOfACrashedWriteThroughRun(String kind) throws IOException {
        Supplier<StateStore> create = supplier(kind);
        Path live = dir.resolve("live");
        StateStore store = open(create, live, StreamsConfig.EXACTLY_ONCE_V2);
        write(store);
        store.flush();
        Path crashed = dir.resolve("crashed");
        StoreHarness.copyState(live, crashed);
        store.close();
        StateStore next = create.get();
        assertThrows(TaskCorruptedException.class, () -> next.init(
                StoreHarness.context(crashed.toFile(), StreamsConfig.EXACTLY_ONCE_V2, true), next));
    }

    private static Supplier<StateStore> supplier(String kind) {
        return switch (kind) {
            case "key-value" -> () -> new BloomStoreSupplier("s", StoreHarness.SMALL, DslStoreFormat.TIMESTAMPED).get();
            case "window" -> () -> BloomStores.windowStore("s", Duration.ofMinutes(10), Duration.ofMinutes(1), false,
                    StoreHarness.SMALL, DslStoreFormat.TIMESTAMPED).get();
            default -> () -> BloomStores.sessionStore("s", Duration.ofMinutes(10), StoreHarness.SMALL, false).get();
        };
    }

    private static void settle(StateStore store) throws IOException {
        if (store instanceof BloomKeyValueStore kv) {
            kv.settle();
        } else {
            ((SegmentedBytesStore) store).settle();
        }
    }

    private static final Bytes OTHER = Bytes.wrap(new byte[] {4, 5});

    @SuppressWarnings("unchecked")
    private static void writeAnother(StateStore store) {
        if (store instanceof KeyValueStore<?, ?> kv) {
            ((KeyValueStore<Bytes, byte[]>) kv).put(OTHER, new byte[] {7});
        } else if (store instanceof WindowStore<?, ?> w) {
            ((WindowStore<Bytes, byte[]>) w).put(OTHER, new byte[] {7}, 120_000);
        } else {
            ((SessionStore<Bytes, byte[]>) store).put(new Windowed<>(OTHER, new SessionWindow(0, 120_000)),
                    new byte[] {7});
        }
    }

    @SuppressWarnings("unchecked")
    private static byte[] readAnother(StateStore store) {
        if (store instanceof KeyValueStore<?, ?> kv) {
            return ((KeyValueStore<Bytes, byte[]>) kv).get(OTHER);
        } else if (store instanceof WindowStore<?, ?> w) {
            return ((WindowStore<Bytes, byte[]>) w).fetch(OTHER, 120_000);
        }
        return ((SessionStore<Bytes, byte[]>) store).fetchSession(OTHER, 0, 120_000);
    }

    private static StateStore open(Supplier<StateStore> create, Path stateDir, String guarantee) {
        StateStore s = create.get();
        s.init(StoreHarness.context(stateDir.toFile(), guarantee), s);
        return s;
    }

    @SuppressWarnings("unchecked")
    private static void write(StateStore store) {
        if (store instanceof KeyValueStore<?, ?> kv) {
            ((KeyValueStore<Bytes, byte[]>) kv).put(KEY, VALUE);
        } else if (store instanceof WindowStore<?, ?> w) {
            ((WindowStore<Bytes, byte[]>) w).put(KEY, VALUE, 60_000);
        } else {
            ((SessionStore<Bytes, byte[]>) store).put(new Windowed<>(KEY, new SessionWindow(0, 60_000)), VALUE);
        }
    }

    @SuppressWarnings("unchecked")
    private static byte[] read(StateStore store) {
        if (store instanceof KeyValueStore<?, ?> kv) {
            return ((KeyValueStore<Bytes, byte[]>) kv).get(KEY);
        } else if (store instanceof WindowStore<?, ?> w) {
            return ((WindowStore<Bytes, byte[]>) w).fetch(KEY, 60_000);
        }
        return ((SessionStore<Bytes, byte[]>) store).fetchSession(KEY, 0, 60_000);
    }
}
