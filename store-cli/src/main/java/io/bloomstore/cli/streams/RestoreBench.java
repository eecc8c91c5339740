package io.bloomstore.cli.streams;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Changelog restore throughput: a fresh store of each engine is opened as Kafka opens it, and the
 * changelog records a benchmark run produced are handed to the restore callback the store
 * registered, in batches of {@value #BATCH} (the consumer's default {@code max.poll.records}),
 * then committed; records/s over the whole restore.
 *
 * <p>Thread safety: one restore per call, on the calling thread.
 */
final class RestoreBench {
    static final int BATCH = 1000;

    private RestoreBench() {
    }

    static double recordsPerSecond(StreamsEngine engine, String storeName,
                                   List<ConsumerRecord<byte[], byte[]>> changelog, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-restore");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // Kafka 5.0's default, set now: otherwise every application warns that it is off.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        engine.configure(props);
        CapturingContext context = new CapturingContext(
                new MockProcessorContext<>(props, new TaskId(0, 0), stateDir.toFile()).getStateStoreContext());
        KeyValueStore<Bytes, byte[]> store = engine.keyValueStore(storeName).get();
        store.init(context, store);
        try {
            long start = System.nanoTime();
            for (int i = 0; i < changelog.size(); i += BATCH) {
                List<ConsumerRecord<byte[], byte[]>> batch = changelog.subList(i, Math.min(changelog.size(), i + BATCH));
                restore(context.callback, batch);
            }
            store.commit(Map.of(new TopicPartition("changelog", 0), (long) changelog.size()));
            long elapsed = System.nanoTime() - start;
            return changelog.size() / (elapsed / 1e9);
        } finally {
            store.close();
        }
    }

    private static void restore(StateRestoreCallback callback, List<ConsumerRecord<byte[], byte[]>> batch) {
        if (callback instanceof RecordBatchingStateRestoreCallback records) {
            records.restoreBatch(batch);
        } else if (callback instanceof BatchingStateRestoreCallback batching) {
            List<KeyValue<byte[], byte[]>> kvs = new ArrayList<>(batch.size());
            for (ConsumerRecord<byte[], byte[]> r : batch) {
                kvs.add(KeyValue.pair(r.key(), r.value()));
            }
            batching.restoreAll(kvs);
        } else {
            for (ConsumerRecord<byte[], byte[]> r : batch) {
                callback.restore(r.key(), r.value());
            }
        }
    }

    /** Kafka's store-testing context, keeping the restore callback the store registers. */
    private static final class CapturingContext implements StateStoreContext {
        private final StateStoreContext delegate;
        private StateRestoreCallback callback;

        CapturingContext(StateStoreContext delegate) {
            this.delegate = delegate;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback restoreCallback) {
            callback = restoreCallback;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback restoreCallback, CommitCallback commitCallback) {
            callback = restoreCallback;
        }

        @Override
        public String applicationId() {
            return delegate.applicationId();
        }

        @Override
        public TaskId taskId() {
            return delegate.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return delegate.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return delegate.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return delegate.valueSerde();
        }

        @Override
        public File stateDir() {
            return delegate.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return delegate.metrics();
        }

        @Override
        public Map<String, Object> appConfigs() {
            return delegate.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return delegate.appConfigsWithPrefix(prefix);
        }
    }
}
