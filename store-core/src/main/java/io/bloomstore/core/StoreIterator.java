package io.bloomstore.core;

import java.util.Iterator;

/**
 * An ordered cursor over the live keys of a key range, forward ({@link Store#iterator}) or
 * reverse ({@link Store#reverseIterator}), merging the memtables and every table and hiding
 * deleted keys and older versions. It sees one snapshot: writes after it was opened are not
 * visible. It pins the tables it reads until {@link #close()}, so always close it
 * (try-with-resources).
 *
 * <p>Errors: {@link Iterator} methods cannot throw checked exceptions, so a failed read of a
 * table surfaces as a {@link java.io.UncheckedIOException} whose {@link
 * java.io.UncheckedIOException#getCause() cause} is the {@link java.io.IOException}: a {@link
 * io.bloomstore.bloom.CorruptionException} naming the file and offset for damaged bytes, another
 * {@code IOException} for an I/O error. It is thrown by {@link Store#iterator} itself (opening
 * the tables) or by {@link #next()} (the iterator reads one entry ahead); the entry that call
 * would have returned is lost, and every later {@link #hasNext()} or {@link #next()} throws the
 * same cause again, so close the iterator and open a new one. The store itself stays usable.
 * After {@link #close()}, {@link #hasNext()} and {@link #next()} throw
 * {@link IllegalStateException}.
 *
 * <p>Thread safety: meant for one thread at a time, yet safe under misuse: every method holds
 * the iterator's own lock, so {@link #close()} from another thread waits for a {@code hasNext}
 * or {@code next} in progress (at most one block read) and releases the pinned tables only
 * then; every later call throws {@link IllegalStateException} ({@code "iterator is closed"}).
 * Two threads calling {@code next} share the entries between them, each entry going to one.
 * Closing the store does not close its iterators: they read on to their end.
 */
public interface StoreIterator extends Iterator<KeyValue>, AutoCloseable {

    @Override
    void close();
}
