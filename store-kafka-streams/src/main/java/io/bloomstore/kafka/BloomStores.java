package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

import java.time.Duration;
import java.util.Objects;

/**
 * Factories of BloomStore-backed state stores for Kafka Streams, mirroring
 * {@link org.apache.kafka.streams.state.Stores}: pass the supplier to the matching
 * {@code Stores.*StoreBuilder} or to {@code Materialized.as}. Each factory takes the same
 * arguments as its {@code Stores} counterpart and checks them the same way, and has a variant
 * with the {@link StoreOptions} to open the BloomStores with. For a whole DSL application at once
 * see {@link BloomStoreDslStoreSuppliers}.
 *
 * <p>Thread safety: stateless.
 */
public final class BloomStores {
    private BloomStores() {
    }

    /** A persistent key-value store with {@link StoreOptions#defaults()}. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name) {
        return persistentKeyValueStore(name, StoreOptions.defaults());
    }

    /** A persistent key-value store opened with {@code options}. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name, StoreOptions options) {
        return new BloomStoreSupplier(checkName(name), options, DslStoreFormat.PLAIN);
    }

    /**
     * A persistent key-value store for timestamped values (a {@code TimestampedBytesStore}), for
     * {@code Stores.timestampedKeyValueStoreBuilder} and the DSL's tables and aggregations.
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
        return persistentTimestampedKeyValueStore(name, StoreOptions.defaults());
    }

    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name, StoreOptions options) {
        return new BloomStoreSupplier(checkName(name), options, DslStoreFormat.TIMESTAMPED);
    }

    /**
     * A persistent key-value store for values with headers and timestamps (a
     * {@code HeadersBytesStore}), for {@code Stores.timestampedKeyValueStoreWithHeadersBuilder}.
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStoreWithHeaders(String name) {
        return persistentTimestampedKeyValueStoreWithHeaders(name, StoreOptions.defaults());
    }

    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStoreWithHeaders(String name,
                                                                                          StoreOptions options) {
        return new BloomStoreSupplier(checkName(name), options, DslStoreFormat.HEADERS);
    }

    /**
     * A persistent window store, time-segmented as Kafka's ({@link BloomWindowStore}).
     *
     * @param retentionPeriod  how long windows are kept; at least {@code windowSize}
     * @param windowSize       the size of the windows (the store returns {@code [start, start + size)})
     * @param retainDuplicates keep every put of a key and window (stream-stream joins)
     * @throws IllegalArgumentException for a negative duration or a retention below the window size
     */
    public static WindowBytesStoreSupplier persistentWindowStore(String name, Duration retentionPeriod,
                                                                 Duration windowSize, boolean retainDuplicates) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, StoreOptions.defaults(),
                DslStoreFormat.PLAIN);
    }

    public static WindowBytesStoreSupplier persistentWindowStore(String name, Duration retentionPeriod,
                                                                 Duration windowSize, boolean retainDuplicates,
                                                                 StoreOptions options) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, options, DslStoreFormat.PLAIN);
    }

    /** A persistent window store for timestamped values, for {@code Stores.timestampedWindowStoreBuilder}. */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStore(String name, Duration retentionPeriod,
                                                                            Duration windowSize,
                                                                            boolean retainDuplicates) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, StoreOptions.defaults(),
                DslStoreFormat.TIMESTAMPED);
    }

    public static WindowBytesStoreSupplier persistentTimestampedWindowStore(String name, Duration retentionPeriod,
                                                                            Duration windowSize,
                                                                            boolean retainDuplicates,
                                                                            StoreOptions options) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, options, DslStoreFormat.TIMESTAMPED);
    }

    /** A persistent window store for values with headers, for {@code Stores.timestampedWindowStoreWithHeadersBuilder}. */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStoreWithHeaders(String name,
                                                                                       Duration retentionPeriod,
                                                                                       Duration windowSize,
                                                                                       boolean retainDuplicates) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, StoreOptions.defaults(),
                DslStoreFormat.HEADERS);
    }

    /** A persistent window store in {@code format}, opened with {@code options}. */
    public static WindowBytesStoreSupplier windowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                       boolean retainDuplicates, StoreOptions options,
                                                       DslStoreFormat format) {
        checkName(name);
        long retention = millis(retentionPeriod, "retentionPeriod");
        long size = millis(windowSize, "windowSize");
        if (retention < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        if (size < 0) {
            throw new IllegalArgumentException("windowSize cannot be negative");
        }
        if (size > retention) {
            throw new IllegalArgumentException("The retention period of the window store " + name
                    + " must be no smaller than its window size. Got size=[" + windowSize + "], retention=["
                    + retentionPeriod + "]");
        }
        return new BloomWindowStoreSupplier(name, options, retention, size, retainDuplicates, format);
    }

    /** A persistent session store, time-segmented as Kafka's ({@link BloomSessionStore}). */
    public static SessionBytesStoreSupplier persistentSessionStore(String name, Duration retentionPeriod) {
        return sessionStore(name, retentionPeriod, StoreOptions.defaults(), false);
    }

    public static SessionBytesStoreSupplier persistentSessionStore(String name, Duration retentionPeriod,
                                                                   StoreOptions options) {
        return sessionStore(name, retentionPeriod, options, false);
    }

    /** A persistent session store for aggregates with headers, for {@code Stores.sessionStoreWithHeadersBuilder}. */
    public static SessionBytesStoreSupplier persistentSessionStoreWithHeaders(String name, Duration retentionPeriod) {
        return sessionStore(name, retentionPeriod, StoreOptions.defaults(), true);
    }

    /** A persistent session store, with headers or not, opened with {@code options}. */
    public static SessionBytesStoreSupplier sessionStore(String name, Duration retentionPeriod, StoreOptions options,
                                                         boolean withHeaders) {
        checkName(name);
        long retention = millis(retentionPeriod, "retentionPeriod");
        if (retention < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        return new BloomSessionStoreSupplier(name, options, retention, withHeaders);
    }

    private static long millis(Duration d, String what) {
        Objects.requireNonNull(d, what + " cannot be null");
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " cannot be expressed in milliseconds: " + d, e);
        }
    }

    private static String checkName(String name) {
        if (name == null) {
            throw new NullPointerException("name cannot be null");
        }
        if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("store name must be a non-empty directory name: '" + name + "'");
        }
        return name;
    }
}
