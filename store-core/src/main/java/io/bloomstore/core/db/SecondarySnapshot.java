package io.bloomstore.core.db;

import io.bloomstore.core.Snapshot;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A snapshot of a secondary ({@link SecondaryDb}): a snapshot of one of its views, which it keeps
 * (a use of it, {@link SecondaryView#tryAcquire()}) until closed, so reads at it go on seeing that
 * view after a catch-up made another.
 *
 * <p>Thread safety: safe to share between threads; {@link #close()} is idempotent.
 */
final class SecondarySnapshot implements Snapshot {
    final SecondaryDb owner;
    final SecondaryView view;
    final Snapshot inner;
    private final AtomicBoolean closed = new AtomicBoolean();

    SecondarySnapshot(SecondaryDb owner, SecondaryView view, Snapshot inner) {
        this.owner = owner;
        this.view = view;
        this.inner = inner;
    }

    @Override
    public long sequence() {
        return inner.sequence();
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

    @Override
    public String toString() {
        return inner.toString();
    }
}
