package io.bloomstore.kafka;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;

/**
 * A Kafka {@code KeyValueIterator} of a {@link BloomKeyValueStore} over a {@link BufferMergeCursor}
 * (the buffered writes merged over a BloomStore iterator, or the BloomStore alone for a
 * {@code READ_COMMITTED} view): strips the key namespace byte. Closing, and the store's close, as
 * {@link GuardedIterator}.
 *
 * <p>Thread safety: as {@link GuardedIterator}.
 */
final class BloomKeyValueIterator extends GuardedIterator<Bytes> {
    private final BufferMergeCursor cursor;

    /** Call inside {@code gate}. */
    BloomKeyValueIterator(StoreGate gate, String storeName, BufferMergeCursor cursor) {
        super(gate, storeName);
        this.cursor = cursor;
    }

    @Override
    protected KeyValue<Bytes, byte[]> advance() {
        io.bloomstore.core.KeyValue kv = cursor.next();
        return kv == null ? null : KeyValue.pair(Bytes.wrap(KeyCodec.decode(kv.key())), kv.value());
    }

    @Override
    protected void releaseResources() {
        cursor.close();
    }
}
