package io.bloomstore.cli.streams;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Attaches a RocksDB {@link Statistics} object to every RocksDB store Kafka Streams opens and
 * keeps it by store name, so the benchmark can read the same counters it reads from BloomStore:
 * data blocks read from files (BLOCK_CACHE_DATA_MISS), filter negatives (BLOOM_FILTER_USEFUL),
 * point lookups (NUMBER_KEYS_READ). Kafka's other RocksDB settings are left as they are.
 *
 * <p>Thread safety: safe; Kafka creates one instance per store.
 */
public final class RocksDbStatistics implements RocksDBConfigSetter {
    private static final Map<String, Statistics> BY_STORE = new ConcurrentHashMap<>();

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Statistics statistics = new Statistics();
        options.setStatistics(statistics);
        BY_STORE.put(storeName, statistics);
    }

    @Override
    public void close(String storeName, Options options) {
        Statistics s = BY_STORE.remove(storeName);
        if (s != null) {
            s.close();
        }
    }

    /** The store's counters as of now, or null when no RocksDB store of that name is open. */
    static StoreCounters counters(String storeName) {
        Statistics s = BY_STORE.get(storeName);
        if (s == null) {
            return null;
        }
        return new StoreCounters(s.getTickerCount(TickerType.NUMBER_KEYS_READ),
                s.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS), s.getTickerCount(TickerType.BLOOM_FILTER_USEFUL));
    }
}
