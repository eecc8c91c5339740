package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

import java.util.Map;

/**
 * Makes every key-value store of a DSL application a BloomStore with one setting:
 * {@code dsl.store.suppliers.class=io.bloomstore.kafka.BloomStoreDslStoreSuppliers}.
 *
 * <p>Key-value stores, plain and timestamped, are BloomStores. Stores in the headers format
 * ({@link DslStoreFormat#HEADERS}), window stores and session stores are delegated to Kafka's
 * built-in RocksDB suppliers: they need time-segmented stores, which BloomStore does not provide
 * yet. Store options come from the application's configuration, see {@link BloomStoreConfig}.
 *
 * <p>Thread safety: configured once by Kafka, then read-only.
 */
public class BloomStoreDslStoreSuppliers implements DslStoreSuppliers {
    private final DslStoreSuppliers rocksDb = new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();
    private StoreOptions options = StoreOptions.defaults();

    @Override
    public void configure(Map<String, ?> configs) {
        options = BloomStoreConfig.storeOptions(configs);
        rocksDb.configure(configs);
    }

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (format == DslStoreFormat.HEADERS) {
            return rocksDb.keyValueStore(params);
        }
        return format == DslStoreFormat.TIMESTAMPED || params.isTimestamped()
                ? BloomStores.persistentTimestampedKeyValueStore(params.name(), options)
                : BloomStores.persistentKeyValueStore(params.name(), options);
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        return rocksDb.windowStore(params);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        return rocksDb.sessionStore(params);
    }
}
