package io.bloomstore.kafka;

import io.bloomstore.core.StoreIterator;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;

/**
 * A Kafka {@code KeyValueIterator} over a {@link StoreIterator} of a {@link BloomKeyValueStore}:
 * strips the key namespace byte. Closing, and the store's close, as {@link GuardedIterator}.
 *
 * <p>Thread safety: as {@link GuardedIterator}.
 */
final class BloomKeyValueIterator extends GuardedIterator<Bytes> {
    private final StoreIterator inner;

    /** Call inside {@code gate}. */
    BloomKeyValueIterator(StoreGate gate, String storeName, StoreIterator inner) {
        super(gate, storeName);
        this.inner = inner;
    }

    @Override
    protected KeyValue<Bytes, byte[]> advance() {
        if (!inner.hasNext()) {
            return null;
        }
        io.bloomstore.core.KeyValue kv = inner.next();
        return KeyValue.pair(Bytes.wrap(KeyCodec.decode(kv.key())), kv.value());
    }

    @Override
    protected void releaseResources() {
        inner.close();
    }
}
