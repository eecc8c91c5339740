package io.bloomstore.kafka;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.io.UncheckedIOException;
import java.util.NoSuchElementException;

/**
 * The base of every iterator the BloomStore-backed Kafka stores hand out: looks one entry ahead
 * (for {@link #peekNextKey()}), and keeps its BloomStore iterators away from the store's close.
 *
 * <p>{@link #hasNext()}, {@link #next()}, {@link #peekNextKey()} and {@link #close()} are
 * synchronized, as in Kafka's {@code RocksDbIterator}, so a close from another thread waits for a
 * step in progress; each step also runs inside the store's {@link StoreGate}, so the store's close
 * waits for it too, then releases this iterator's BloomStore iterators itself. A step on a closed
 * iterator or on the iterator of a closed store throws {@link InvalidStateStoreException}; a read
 * error of the BloomStore is a {@link ProcessorStateException}. No BloomStore exception type leaks.
 *
 * <p>Thread safety: safe; meant for one reader at a time, closable from any thread.
 *
 * @param <K> the key type Kafka sees
 */
abstract class GuardedIterator<K> implements KeyValueIterator<K, byte[]> {
    private final StoreGate gate;
    private final String storeName;
    private KeyValue<K, byte[]> next;
    private boolean closed;
    /** Set once, under the gate's write lock or under this iterator's monitor inside the gate. */
    private boolean released;

    /** Call inside {@code gate}; registers the iterator for the store's close. */
    GuardedIterator(StoreGate gate, String storeName) {
        this.gate = gate;
        this.storeName = storeName;
        gate.register(this);
    }

    /** The next entry, or null at the end. Runs inside the gate and under this iterator's monitor. */
    protected abstract KeyValue<K, byte[]> advance();

    /** Closes the BloomStore iterators and releases what they pin; called once. */
    protected abstract void releaseResources();

    @Override
    public synchronized boolean hasNext() {
        gate.enter();
        try {
            if (closed || released) {
                throw new InvalidStateStoreException("BloomStore iterator for store " + storeName + " has closed");
            }
            if (next == null) {
                next = advance();
            }
            return next != null;
        } catch (UncheckedIOException e) {
            throw new ProcessorStateException("Error reading BloomStore " + storeName, e.getCause());
        } finally {
            gate.exit();
        }
    }

    @Override
    public synchronized KeyValue<K, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<K, byte[]> result = next;
        next = null;
        return result;
    }

    @Override
    public synchronized K peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return next.key;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        next = null;
        // Unregistered only inside the gate: a store close in between would otherwise no longer
        // see this iterator, and this close, finding the store closed, would release nothing.
        if (gate.tryEnter()) {
            try {
                gate.unregister(this);
                release();
            } finally {
                gate.exit();
            }
        }
        // Else the store is closed, and its close released this iterator (still registered) under
        // the write lock.
    }

    /** The store's close: under the gate's write lock, so no step of this iterator is running. */
    void releaseByStore() {
        release();
    }

    private void release() {
        if (!released) {
            released = true;
            releaseResources();
        }
    }
}
