package io.bloomstore.cli.streams;

import io.bloomstore.kafka.BloomStoreDslStoreSuppliers;
import io.bloomstore.kafka.BloomStores;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

import java.util.Locale;
import java.util.Properties;

/**
 * The state-store engines {@code bloomstore bench-streams} compares, each with its Kafka Streams
 * defaults: BloomStore ({@link io.bloomstore.core.StoreOptions#defaults()}) and Kafka's built-in
 * RocksDB store (Kafka's own RocksDB settings, with a statistics object attached by
 * {@link RocksDbStatistics} to count block reads and filter answers).
 *
 * <p>Thread safety: immutable.
 */
enum StreamsEngine {
    BLOOMSTORE("bloomstore"),
    ROCKSDB("rocksdb");

    private final String cliName;

    StreamsEngine(String cliName) {
        this.cliName = cliName;
    }

    String cliName() {
        return cliName;
    }

    static StreamsEngine byCliName(String name) {
        for (StreamsEngine e : values()) {
            if (e.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown engine '" + name + "'; known: bloomstore, rocksdb");
    }

    /** A plain key-value store supplier, for the Processor API topologies. */
    KeyValueBytesStoreSupplier keyValueStore(String name) {
        return this == BLOOMSTORE ? BloomStores.persistentKeyValueStore(name) : Stores.persistentKeyValueStore(name);
    }

    /** Settings that make this engine back every DSL store. */
    void configure(Properties props) {
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, this == BLOOMSTORE
                ? BloomStoreDslStoreSuppliers.class : BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        if (this == ROCKSDB) {
            props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, RocksDbStatistics.class);
        }
    }
}
