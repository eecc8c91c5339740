package io.bloomstore.kafka;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

import java.util.Properties;

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
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT + "-" + app, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.as(STORE))
                .toStream()
                .to(OUTPUT + "-" + app, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
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

    /** args: bootstrap servers, application id, state directory. Prints each state change. */
    public static void main(String[] args) throws InterruptedException {
        KafkaStreams streams = new KafkaStreams(topology(args[1]), config(args[0], args[1], args[2]));
        streams.setStateListener((now, before) -> System.out.println("STATE " + now));
        streams.start();
        Thread.currentThread().join();
    }
}
