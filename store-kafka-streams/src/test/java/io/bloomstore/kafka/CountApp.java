package io.bloomstore.kafka;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stateful application of the broker tests: counts events per key into a BloomStore (every
 * DSL store through {@link BloomStoreDslStoreSuppliers}) under exactly_once_v2 and emits every
 * count. Also runs as a child JVM ({@link #main}) so a test can kill it with SIGKILL.
 */
final class CountApp {
    static final String INPUT = "events";
    static final String OUTPUT = "counts";
    static final String STORE = "count-store";

    private CountApp() {
    }

    /** Reads {@code events-<app>}, writes {@code counts-<app>}. */
    static Topology topology(String app) {
        return topology(app, false);
    }

    /**
     * With {@code writeOut}, every count also opens an iterator on the store and keeps it open
     * until the next record: a write-through store then writes its buffered writes (of a
     * transaction not committed yet) to its files, and a crash always finds an iterator open.
     */
    static Topology topology(String app, boolean writeOut) {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, Long> counts = builder.stream(INPUT + "-" + app, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.as(STORE))
                .toStream();
        if (writeOut) {
            counts = counts.process(WriteOut::new, STORE);
        }
        counts.to(OUTPUT + "-" + app, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** Records the write-out topology processed in this JVM, printed every 1,000 as {@code PROCESSED <n>}. */
    private static final AtomicLong PROCESSED = new AtomicLong();

    /** Opens (and closes) an iterator of the count store for every record, then forwards it. */
    static final class WriteOut implements Processor<String, Long, String, Long> {
        private ProcessorContext<String, Long> context;
        private KeyValueStore<String, ValueAndTimestamp<Long>> store;

        @Override
        public void init(ProcessorContext<String, Long> context) {
            this.context = context;
            store = context.getStateStore(STORE);
        }

        private KeyValueIterator<String, ValueAndTimestamp<Long>> open;

        @Override
        public void process(Record<String, Long> record) {
            if (open != null) {
                open.close();
            }
            open = store.range(record.key(), record.key());
            open.hasNext();
            context.forward(record);
            long n = PROCESSED.incrementAndGet();
            if (n % 1000 == 0) {
                System.out.println("PROCESSED " + n);
            }
        }

        @Override
        public void close() {
            if (open != null) {
                open.close();
            }
        }
    }

    static Properties config(String bootstrap, String appId, String stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, BloomStoreDslStoreSuppliers.class);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 6000);
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 500);
        p.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), 5000);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(BloomStoreConfig.MEMTABLE_BYTES, 64 * 1024);
        return p;
    }

    /**
     * args: bootstrap servers, application id, state directory, and optionally a mode:
     * {@code write-out} (the write-out topology, committing every 30 s), {@code tx-write-out} (the
     * same with {@code enable.transactional.statestores} on), {@code tx} (setting on, commits at
     * the default interval). Prints each state change and, at each restore's end, {@code RESTORED
     * <records>}. SIGTERM closes the instance cleanly (a shutdown hook); SIGKILL is the crash.
     */
    public static void main(String[] args) throws InterruptedException {
        String mode = args.length > 3 ? args[3] : "";
        boolean writeOut = mode.endsWith("write-out");
        Properties config = config(args[0], args[1], args[2]);
        if (writeOut) {
            config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 30000);
            config.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), 60000);
        }
        if (mode.startsWith("tx")) {
            config.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        }
        KafkaStreams streams = new KafkaStreams(topology(args[1], writeOut), config);
        streams.setStateListener((now, before) -> System.out.println("STATE " + now));
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long restored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                System.out.println("RESTORED " + totalRestored);
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            boolean closed = streams.close(Duration.ofSeconds(30));
            System.out.println(closed ? "CLOSED CLEANLY" : "CLOSE TIMED OUT");
        }));
        streams.start();
        Thread.currentThread().join();
    }
}
