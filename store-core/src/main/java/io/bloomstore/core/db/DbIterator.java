package io.bloomstore.core.db;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.MergeAccumulator;
import io.bloomstore.core.internal.ValueType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The user-facing iterator: walks a {@link MergingIterator} over all sources and, for each user key
 * in [{@code from}, {@code to}), yields the newest version visible at the snapshot, skipping keys
 * whose newest visible version is a tombstone. Lazy: the next entry is found when
 * {@link #hasNext()} (or {@link #next()}) asks for it, and going forwards the sources stay on
 * the entry returned until then, so a scan of n entries reads the blocks of those n entries and
 * no further (an iterator that stayed one entry ahead read the block after the last entry a
 * caller wanted whenever that entry ended its block). Holds the read view's tables (a
 * {@link VersionRef}) until {@link #close()}.
 *
 * <p>Thread safety: every public method holds the iterator's own lock, and {@link #close()}
 * releases the sources and the pinned tables under it. So a close from another thread waits for
 * a {@code hasNext}/{@code next} in progress (at most one block read) and every call after it sees
 * the closed flag under that lock and throws {@link IllegalStateException}: no call can touch a
 * source, a scratch block or a table's off-heap index or mapped filter after the close has let
 * them go. That is what makes a store's close, or a close from another thread, unable to free
 * memory under a reader: tables are released only when their last pin goes, and an iterator's pin
 * goes only under its lock. The lock is uncontended for an iterator used by one thread.
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
    /** Merge operator and TTL; expiry is judged at {@link #now}, the iterator's creation. */
    private final EntryRules rules;
    private final long now;
    private KeyValue next;
    /** Whether {@link #next} is the entry at the current position (else it is still to be found). */
    private boolean found;
    /**
     * Going forwards: the user key last returned, whose older versions the sources still have to
     * pass before the next entry is found (null when there are none).
     */
    private byte[] returnedKey;
    private boolean closed;
    /** The read that failed; once set, the position is lost and every call rethrows it. */
    private IOException failure;

    DbIterator(List<InternalIterator> sources, VersionRef tables, byte[] from, byte[] to, long snapshot,
               boolean reverse, EntryRules rules) throws IOException {
        this.rules = rules;
        this.now = rules.timed() ? rules.now() : 0;
        this.sources = sources;
        this.tables = tables;
        this.from = from;
        this.to = to;
        this.snapshot = snapshot;
        this.reverse = reverse;
        this.merged = reverse ? MergingIterator.reverse(sources, to) : MergingIterator.forward(sources, from);
    }

    @Override
    public boolean hasNext() {
        synchronized (this) {
            return findIfNeeded();
        }
    }

    private boolean findIfNeeded() {
        if (closed) {
            throw new IllegalStateException("iterator is closed");
        }
        if (failure != null) {
            throw new UncheckedIOException(failure);
        }
        if (!found) {
            try {
                next = reverse ? findPrevious() : findNext();
            } catch (IOException e) {
                failure = e;
                throw new UncheckedIOException(e);
            }
            found = true;
        }
        return next != null;
    }

    @Override
    public KeyValue next() {
        synchronized (this) {
            if (!findIfNeeded()) {
                throw new NoSuchElementException();
            }
            found = false;
            return next;
        }
    }

    private KeyValue findNext() throws IOException {
        if (returnedKey != null) {
            while (merged.valid() && Arrays.equals(merged.current().key(), returnedKey)) {
                merged.advance();
            }
            returnedKey = null;
        }
        while (merged.valid()) {
            byte[] key = merged.current().key();
            if (to != null && Arrays.compareUnsigned(key, to) >= 0) {
                return null;
            }
            // The first visible entry of a key is its newest version at the snapshot: returned with
            // the sources left on it; a tombstone, or no visible version, passes the key whole.
            while (merged.valid() && Arrays.equals(merged.current().key(), key)) {
                InternalIterator e = merged.current();
                if (e.sequence() <= snapshot) {
                    ValueType type = e.type();
                    if (type == ValueType.VALUE) {
                        returnedKey = key;
                        int at = e.valueOffset();
                        return new KeyValue(key.clone(), Arrays.copyOfRange(e.valueArray(), at, at + e.valueLength()));
                    }
                    if (type == ValueType.TIMED_VALUE && !rules.expired(e.valueArray(), e.valueOffset(), e.valueLength(), now)) {
                        returnedKey = key;
                        return new KeyValue(key.clone(), EntryRules.payload(e.valueArray(), e.valueOffset(), e.valueLength()));
                    }
                    if (type.isMerge()) {
                        KeyValue kv = mergeForward(key);
                        if (kv != null) {
                            return kv;
                        }
                    }
                    while (merged.valid() && Arrays.equals(merged.current().key(), key)) {
                        merged.advance();
                    }
                    break;
                }
                merged.advance();
            }
        }
        return null;
    }

    /**
     * With the sources on the newest visible entry of {@code key}, a merge operand: gathers it and
     * the versions below it that count ({@link MergeAccumulator}), moves past the key's other
     * versions and returns the merged value.
     */
    private KeyValue mergeForward(byte[] key) throws IOException {
        MergeAccumulator versions = new MergeAccumulator(rules, key, now);
        while (merged.valid() && Arrays.equals(merged.current().key(), key)) {
            InternalIterator e = merged.current();
            versions.add(e.type(), e.valueArray(), e.valueOffset(), e.valueLength());
            merged.advance();
        }
        return new KeyValue(key.clone(), versions.merge());
    }

    private static byte[] copyValue(InternalIterator e) {
        int at = e.valueOffset();
        return Arrays.copyOfRange(e.valueArray(), at, at + e.valueLength());
    }

    private KeyValue findPrevious() throws IOException {
        while (merged.valid()) {
            byte[] key = merged.current().key();
            if (from != null && Arrays.compareUnsigned(key, from) < 0) {
                return null;
            }
            boolean excluded = to != null && Arrays.compareUnsigned(key, to) >= 0;
            // Going backwards a key's versions arrive oldest first: the last visible one wins, and
            // merge operands pile up over the last visible value or tombstone below them.
            ValueType type = null;
            byte[] value = null;
            List<InternalEntry> operands = null;
            while (merged.valid() && Arrays.equals(merged.current().key(), key)) {
                InternalIterator e = merged.current();
                if (e.sequence() <= snapshot) {
                    if (e.type().isMerge()) {
                        if (operands == null) {
                            operands = new ArrayList<>();
                        }
                        operands.add(new InternalEntry(e.type(), copyValue(e)));
                    } else {
                        type = e.type();
                        value = copyValue(e);
                        operands = null;
                    }
                }
                merged.advance();
            }
            if (excluded) {
                continue;
            }
            if (operands != null) {
                MergeAccumulator versions = new MergeAccumulator(rules, key, now);
                for (int i = operands.size() - 1; i >= 0; i--) {
                    versions.add(operands.get(i).type(), operands.get(i).value(), 0, operands.get(i).value().length);
                }
                if (type != null) {
                    versions.add(type, value, 0, value.length);
                }
                return new KeyValue(key.clone(), versions.merge());
            }
            if (type == ValueType.VALUE) {
                return new KeyValue(key.clone(), value);
            }
            if (type == ValueType.TIMED_VALUE && !rules.expired(value, 0, value.length, now)) {
                return new KeyValue(key.clone(), EntryRules.payload(value, 0, value.length));
            }
        }
        return null;
    }

    /** A version going backwards: its type and bytes. */
    private record InternalEntry(ValueType type, byte[] value) {
    }

    @Override
    public synchronized void close() {
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
