package io.bloomstore.kafka;

import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The open/closed state of one Kafka store and the lock that keeps every use of its BloomStores
 * apart from their close. Every call that touches a BloomStore or one of its iterators runs
 * between {@link #enter()} and {@link #exit()} (the read lock, shared, so queries and the stream
 * thread run side by side); {@link #close} takes the write lock, so it waits for the calls in
 * flight, marks the store closed, releases the open iterators and only then closes the
 * BloomStores. A call that enters after that finds the store closed and gets an
 * {@link InvalidStateStoreException}, as with Kafka's own stores.
 *
 * <p>So no BloomStore code runs on a store that is being closed or is closed, whatever thread
 * closes it: a table, an index or a mapped filter is never read after the close released it,
 * which makes a read of freed off-heap memory impossible by construction rather than by the
 * engine's own checks.
 *
 * <p>Thread safety: safe for any number of threads. The write lock is only taken by
 * {@link #close}; the thread that holds it may still enter (the close path writes buffered data).
 */
final class StoreGate {
    private final String storeName;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Set<GuardedIterator<?>> iterators = ConcurrentHashMap.newKeySet();
    private volatile boolean open;

    StoreGate(String storeName) {
        this.storeName = storeName;
    }

    /** Called once the store's BloomStores are open. */
    void opened() {
        open = true;
    }

    boolean isOpen() {
        return open;
    }

    /**
     * Enters a section that uses the BloomStores: pair with {@link #exit()} in a finally block.
     *
     * @throws InvalidStateStoreException when the store is closed
     */
    void enter() {
        lock.readLock().lock();
        if (!open) {
            lock.readLock().unlock();
            throw closed();
        }
    }

    /** Enters when the store is open; false (and nothing to exit) when it is closed. */
    boolean tryEnter() {
        lock.readLock().lock();
        if (!open) {
            lock.readLock().unlock();
            return false;
        }
        return true;
    }

    void exit() {
        lock.readLock().unlock();
    }

    /** Registers an iterator the close must release; call between enter and exit. */
    void register(GuardedIterator<?> iterator) {
        iterators.add(iterator);
    }

    void unregister(GuardedIterator<?> iterator) {
        iterators.remove(iterator);
    }

    /**
     * Waits for every call in flight, marks the store closed, releases the open iterators (later
     * use of them answers {@link InvalidStateStoreException}) and runs {@code closer}, which
     * closes the BloomStores. Does nothing when already closed.
     */
    void close(Runnable closer) {
        lock.writeLock().lock();
        try {
            if (!open) {
                return;
            }
            open = false;
            for (GuardedIterator<?> it : List.copyOf(iterators)) {
                it.releaseByStore();
            }
            iterators.clear();
            closer.run();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Open iterators: for tests. */
    int openIterators() {
        return iterators.size();
    }

    InvalidStateStoreException closed() {
        return new InvalidStateStoreException("Store " + storeName + " is currently closed");
    }
}
