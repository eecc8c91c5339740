package io.bloomstore.kafka;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.WindowStoreIterator;

import java.util.function.Function;

/**
 * An iterator of a window or session store over a {@link SegmentCursor}: decodes
 * each stored entry into what Kafka sees, skipping those the decoder rejects (null: outside the
 * query's times). Closing, and the store's close, as {@link GuardedIterator}.
 *
 * <p>Thread safety: as {@link GuardedIterator}.
 *
 * @param <K> the key type Kafka sees
 */
class SegmentedIterator<K> extends GuardedIterator<K> {
    private final SegmentCursor cursor;
    private final Function<io.bloomstore.core.KeyValue, KeyValue<K, byte[]>> decode;

    /** Call inside the store's gate. */
    SegmentedIterator(SegmentedStore store, SegmentCursor cursor,
                      Function<io.bloomstore.core.KeyValue, KeyValue<K, byte[]>> decode) {
        super(store.gate, store.name);
        this.cursor = cursor;
        this.decode = decode;
    }

    @Override
    protected KeyValue<K, byte[]> advance() {
        for (io.bloomstore.core.KeyValue kv = cursor.next(); kv != null; kv = cursor.next()) {
            KeyValue<K, byte[]> out = decode.apply(kv);
            if (out != null) {
                return out;
            }
        }
        return null;
    }

    @Override
    protected void releaseResources() {
        cursor.close();
    }

    /** The iterator of a one-key window fetch: window start → value. */
    static final class Values extends SegmentedIterator<Long> implements WindowStoreIterator<byte[]> {
        Values(SegmentedStore store, SegmentCursor cursor,
               Function<io.bloomstore.core.KeyValue, KeyValue<Long, byte[]>> decode) {
            super(store, cursor, decode);
        }
    }
}
