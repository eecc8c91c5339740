package io.bloomstore.kafka;

import io.bloomstore.core.StoreIterator;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A Kafka {@link KeyValueIterator} over a {@link StoreIterator}: strips the key namespace byte,
 * adds {@link #peekNextKey()} by looking one entry ahead, and is closed by its store when the
 * store closes (then any further use is an {@link InvalidStateStoreException}, as with Kafka's
 * RocksDB iterators).
 *
 * <p>Thread safety: not thread-safe, like the iterator it wraps; {@link #close()} may be called
 * by the store's closing thread.
 */
final class BloomKeyValueIterator implements KeyValueIterator<Bytes, byte[]> {
    private final String storeName;
    private final StoreIterator inner;
    private final Consumer<BloomKeyValueIterator> onClose;
    private KeyValue<Bytes, byte[]> next;
    private volatile boolean open = true;

    BloomKeyValueIterator(String storeName, StoreIterator inner, Consumer<BloomKeyValueIterator> onClose) {
        this.storeName = storeName;
        this.inner = inner;
        this.onClose = onClose;
    }

    @Override
    public boolean hasNext() {
        checkOpen();
        if (next == null && inner.hasNext()) {
            io.bloomstore.core.KeyValue kv = inner.next();
            next = KeyValue.pair(Bytes.wrap(KeyCodec.decode(kv.key())), kv.value());
        }
        return next != null;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> result = next;
        next = null;
        return result;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return next.key;
    }

    @Override
    public void close() {
        if (open) {
            open = false;
            inner.close();
            onClose.accept(this);
        }
    }

    private void checkOpen() {
        if (!open) {
            throw new InvalidStateStoreException("BloomStore iterator for store " + storeName + " has closed");
        }
    }
}
