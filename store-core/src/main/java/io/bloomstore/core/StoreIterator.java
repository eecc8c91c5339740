package io.bloomstore.core;

import java.util.Iterator;

/**
 * An ordered cursor over the live keys of a key range, forward ({@link Store#iterator}) or
 * reverse ({@link Store#reverseIterator}), merging the memtables and every table and hiding
 * deleted keys and older versions. It sees one snapshot: writes after it was opened are not
 * visible. It pins the tables it reads until {@link #close()}, so always close it
 * (try-with-resources). I/O errors while iterating surface as {@link java.io.UncheckedIOException}.
 *
 * <p>Thread safety: not thread-safe; use from one thread at a time.
 */
public interface StoreIterator extends Iterator<KeyValue>, AutoCloseable {

    @Override
    void close();
}
