package io.bloomstore.core.db;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.table.WholeBlock;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * One cursor over the tables of a level ≥ 1, whose key ranges are disjoint and sorted: it opens
 * one table at a time, the one holding its position, and moves to the neighbouring table when it
 * steps past either end (LevelDB's two-level "concatenating" iterator). So a seek reads a block of
 * one table per level, not of every table whose range lies past the start key: a scan over a store
 * of thousands of tables touches only the tables it walks through.
 *
 * <p>The tables are the level's tables a scan may need, in key order; a table left out (its filter
 * ruled the scan's range out) is treated as empty.
 *
 * <p>Thread safety: not thread-safe; one thread at a time.
 */
final class LevelIterator implements InternalIterator {
    private final List<FileMetaData> files;
    private final Function<FileMetaData, InternalIterator> opener;
    private int index = -1;
    private InternalIterator current;

    /**
     * @param files  tables of one level ≥ 1, sorted by key, ranges disjoint
     * @param opener opens an iterator over one table (the caller keeps the table alive)
     */
    LevelIterator(List<FileMetaData> files, Function<FileMetaData, InternalIterator> opener) {
        this.files = files;
        this.opener = opener;
    }

    @Override
    public boolean valid() {
        return current != null && current.valid();
    }

    @Override
    public void seekToFirst() throws IOException {
        if (open(0)) {
            current.seekToFirst();
            skipForward();
        }
    }

    @Override
    public void seekToLast() throws IOException {
        if (open(files.size() - 1)) {
            current.seekToLast();
            skipBackward();
        }
    }

    @Override
    public void seek(byte[] userKey) throws IOException {
        // The first table whose largest key is ≥ the target holds the first entry ≥ it, if any table does.
        int lo = Version.firstEndingAtOrAfter(files, userKey);
        if (open(lo)) {
            current.seek(userKey);
            skipForward();
        }
    }

    @Override
    public void seekForPrev(byte[] userKey) throws IOException {
        // The last table whose smallest key is ≤ the target holds the last entry ≤ it, if any table does.
        int lo = 0;
        int hi = files.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(files.get(mid).smallestKey(), userKey) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (open(lo - 1)) {
            current.seekForPrev(userKey);
            skipBackward();
        }
    }

    @Override
    public void next() throws IOException {
        requireValid();
        current.next();
        skipForward();
    }

    @Override
    public void prev() throws IOException {
        requireValid();
        current.prev();
        skipBackward();
    }

    @Override
    public WholeBlock wholeBlock() {
        return valid() ? current.wholeBlock() : null;
    }

    @Override
    public void skipBlock() throws IOException {
        requireValid();
        current.skipBlock();
        skipForward();
    }

    private void skipForward() throws IOException {
        while (!current.valid()) {
            if (!open(index + 1)) {
                return;
            }
            current.seekToFirst();
        }
    }

    private void skipBackward() throws IOException {
        while (!current.valid()) {
            if (!open(index - 1)) {
                return;
            }
            current.seekToLast();
        }
    }

    /** Closes the table open now and opens table {@code i}; false (and nothing open) when out of range. */
    private boolean open(int i) throws IOException {
        if (current != null && index == i) {
            return true;
        }
        closeCurrent();
        if (i < 0 || i >= files.size()) {
            return false;
        }
        current = opener.apply(files.get(i));
        index = i;
        return true;
    }

    private void closeCurrent() throws IOException {
        InternalIterator c = current;
        current = null;
        index = -1;
        if (c != null) {
            c.close();
        }
    }

    private void requireValid() {
        if (!valid()) {
            throw new IllegalStateException("iterator is not positioned at an entry");
        }
    }

    @Override
    public byte[] key() {
        return current.key();
    }

    @Override
    public long sequence() {
        return current.sequence();
    }

    @Override
    public ValueType type() {
        return current.type();
    }

    @Override
    public byte[] value() {
        return current.value();
    }

    @Override
    public byte[] valueArray() {
        return current.valueArray();
    }

    @Override
    public int valueOffset() {
        return current.valueOffset();
    }

    @Override
    public int valueLength() {
        return current.valueLength();
    }

    @Override
    public void close() throws IOException {
        closeCurrent();
    }
}
