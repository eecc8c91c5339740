package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

import java.util.Map;

/**
 * Makes every state store of a DSL application a BloomStore with one setting:
 * {@code dsl.store.suppliers.class=io.bloomstore.kafka.BloomStoreDslStoreSuppliers}. Nothing is
 * delegated to RocksDB:
 * <ul>
 *   <li>key-value stores (tables, aggregations, the outer-join store of stream-stream joins) in
 *       the format the DSL asks for: plain, timestamped, or with headers
 *       ({@code dsl.store.format=HEADERS});
 *   <li>window stores (windowed aggregations, sliding windows, both sides of stream-stream joins
 *       with {@code retainDuplicates}) as {@link BloomWindowStore}, timestamped unless the DSL
 *       asks for plain, with headers when it asks for them;
 *   <li>session stores as {@link BloomSessionStore}, with headers when asked.
 * </ul>
 * Emit-on-window-close aggregations, for which Kafka's RocksDB suppliers pick time-ordered
 * stores, get the same window and session stores: the DSL reads them through the plain
 * {@code WindowStore}/{@code SessionStore} interfaces, as it does Kafka's in-memory stores.
 * Store options come from the application's configuration, see {@link BloomStoreConfig}.
 *
 * <p>Thread safety: configured once by Kafka, then read-only.
 */
public class BloomStoreDslStoreSuppliers implements DslStoreSuppliers {
    private StoreOptions options = StoreOptions.defaults();

    @Override
    public void configure(Map<String, ?> configs) {
        options = BloomStoreConfig.storeOptions(configs);
    }

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        return switch (params.dslStoreFormat()) {
            case HEADERS -> BloomStores.persistentTimestampedKeyValueStoreWithHeaders(params.name(), options);
            case TIMESTAMPED -> BloomStores.persistentTimestampedKeyValueStore(params.name(), options);
            case PLAIN -> BloomStores.persistentKeyValueStore(params.name(), options);
        };
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        // A null format is the DSL's default for windows, timestamped, as in Kafka's own suppliers.
        DslStoreFormat format = params.dslStoreFormat() == null ? DslStoreFormat.TIMESTAMPED : params.dslStoreFormat();
        return BloomStores.windowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                params.retainDuplicates(), options, format);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        return BloomStores.sessionStore(params.name(), params.retentionPeriod(), options,
                params.storeFormat() == DslStoreFormat.HEADERS);
    }
}
