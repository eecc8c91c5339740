package io.bloomstore.core.db;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The user-facing iterator: walks a {@link MergingIterator} over all sources and, for each user key
 * in [{@code from}, {@code to}), yields the newest version visible at the snapshot, skipping keys
 * whose newest visible version is a tombstone. Always one entry ahead, so {@link #hasNext()} is
 * cheap. Holds the read view's tables (a {@link VersionRef}) until {@link #close()}.
 *
 * <p>Thread safety: not thread-safe.
 */
final class DbIterator implements StoreIterator {
    private final MergingIterator merged;
    private final List<InternalIterator> sources;
    /** The read view's tables, held until close. */
    private final VersionRef tables;
    private final byte[] from;
    private final byte[] to;
    private final long snapshot;
    private final boolean reverse;
    private KeyValue next;
    private boolean closed;
    /** The read that failed; once set, the position is lost and every call rethrows it. */
    private IOException failure;

    DbIterator(List<InternalIterator> sources, VersionRef tables, byte[] from, byte[] to, long snapshot,
               boolean reverse) throws IOException {
        this.sources = sources;
        this.tables = tables;
        this.from = from;
        this.to = to;
        this.snapshot = snapshot;
        this.reverse = reverse;
        this.merged = reverse ? MergingIterator.reverse(sources, to) : MergingIterator.forward(sources, from);
        this.next = reverse ? findPrevious() : findNext();
    }

    @Override
    public boolean hasNext() {
        if (closed) {
            throw new IllegalStateException("iterator is closed");
        }
        if (failure != null) {
            throw new UncheckedIOException(failure);
        }
        return next != null;
    }

    @Override
    public KeyValue next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue out = next;
        try {
            next = reverse ? findPrevious() : findNext();
        } catch (IOException e) {
            failure = e;
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private KeyValue findNext() throws IOException {
        while (merged.valid()) {
            InternalIterator top = merged.current();
            byte[] key = top.key();
            if (to != null && Arrays.compareUnsigned(key, to) >= 0) {
                return null;
            }
            // The first visible entry of a key is its newest version at the snapshot.
            KeyValue found = null;
            boolean decided = false;
            while (merged.valid() && Arrays.equals(merged.current().key(), key)) {
                InternalIterator e = merged.current();
                if (!decided && e.sequence() <= snapshot) {
                    decided = true;
                    if (e.type() == ValueType.VALUE) {
                        found = new KeyValue(key.clone(), e.value().clone());
                    }
                }
                merged.advance();
            }
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private KeyValue findPrevious() throws IOException {
        while (merged.valid()) {
            byte[] key = merged.current().key();
            if (from != null && Arrays.compareUnsigned(key, from) < 0) {
                return null;
            }
            boolean excluded = to != null && Arrays.compareUnsigned(key, to) >= 0;
            // Going backwards a key's versions arrive oldest first: the last visible one wins.
            ValueType type = null;
            byte[] value = null;
            while (merged.valid() && Arrays.equals(merged.current().key(), key)) {
                InternalIterator e = merged.current();
                if (e.sequence() <= snapshot) {
                    type = e.type();
                    value = e.value();
                }
                merged.advance();
            }
            if (!excluded && type == ValueType.VALUE) {
                return new KeyValue(key.clone(), value.clone());
            }
        }
        return null;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        next = null;
        IOException failure = null;
        for (InternalIterator it : sources) {
            try {
                it.close();
            } catch (IOException e) {
                failure = e;
            }
        }
        tables.release();
        if (failure != null) {
            throw new UncheckedIOException(failure);
        }
    }
}
