package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/** Opens stores outside a topology through Kafka's own store-testing context; test helpers. */
final class StoreHarness {
    /** Small memtables so a few hundred writes already spread over several tables. */
    static final StoreOptions SMALL = StoreOptions.builder().memtableBytes(4096).blockSize(256).build();

    private StoreHarness() {
    }

    static StateStoreContext context(File stateDir) {
        return context(stateDir, StreamsConfig.AT_LEAST_ONCE);
    }

    /** A context whose application runs with {@code processingGuarantee}. */
    static StateStoreContext context(File stateDir, String processingGuarantee) {
        return context(stateDir, processingGuarantee, false);
    }

    /**
     * A context whose application runs with {@code processingGuarantee} and
     * {@code enable.transactional.statestores} set to {@code transactionalSetting}.
     */
    static StateStoreContext context(File stateDir, String processingGuarantee, boolean transactionalSetting) {
        Properties props = new Properties();
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, transactionalSetting);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "contract");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.getAbsolutePath());
        return new MockProcessorContext<>(props, new TaskId(0, 0), stateDir).getStateStoreContext();
    }

    static <S extends KeyValueStore<Bytes, byte[]>> S init(S store, File stateDir) {
        store.init(context(stateDir), store);
        return store;
    }

    static <S extends StateStore> S initStore(S store, File stateDir) {
        store.init(context(stateDir), store);
        return store;
    }

    /** Drains an iterator into (key hex, value hex) pairs and closes it. */
    static List<String> drain(KeyValueIterator<Bytes, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                Bytes peek = it.peekNextKey();
                KeyValue<Bytes, byte[]> kv = it.next();
                if (!peek.equals(kv.key)) {
                    throw new AssertionError("peekNextKey " + peek + " but next " + kv.key);
                }
                out.add(kv.key + "=" + Bytes.wrap(kv.value));
            }
        }
        return out;
    }

    /**
     * A crash of the process holding the stores under {@code from}: copies the files as they are
     * now (everything a store wrote reached the file, unsynced writes included, as after a process
     * crash), without the lock files.
     */
    static void copyState(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p));
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, target);
                }
            }
        }
    }

    static Bytes key(int... unsignedBytes) {
        byte[] b = new byte[unsignedBytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) unsignedBytes[i];
        }
        return Bytes.wrap(b);
    }
}
