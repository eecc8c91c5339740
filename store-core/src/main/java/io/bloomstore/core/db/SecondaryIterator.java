package io.bloomstore.core.db;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.StoreIterator;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An iterator of a secondary ({@link SecondaryDb}): an iterator of one of its views, which it
 * keeps (a use of it) until closed, so that a catch-up neither moves it nor removes the links it
 * reads. Errors and closed-iterator behaviour are the inner iterator's ({@link StoreIterator}).
 *
 * <p>Thread safety: as {@link StoreIterator}; {@link #close()} is idempotent.
 */
final class SecondaryIterator implements StoreIterator {
    private final StoreIterator inner;
    private final SecondaryView view;
    private final AtomicBoolean closed = new AtomicBoolean();

    SecondaryIterator(StoreIterator inner, SecondaryView view) {
        this.inner = inner;
        this.view = view;
    }

    @Override
    public boolean hasNext() {
        return inner.hasNext();
    }

    @Override
    public KeyValue next() {
        return inner.next();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                inner.close();
            } finally {
                view.release();
            }
        }
    }
}
