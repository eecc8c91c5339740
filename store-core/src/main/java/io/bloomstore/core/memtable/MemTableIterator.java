package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An {@link InternalIterator} over a memtable's skip list. Forward steps walk the skip list's
 * bottom level with an entry iterator (constant time per step, which a flush of a whole memtable
 * needs); seeks and backward steps navigate from the current key (logarithmic). Both stay valid
 * while the writer keeps adding entries (the iterator may or may not see them; readers filter by
 * sequence number anyway).
 *
 * <p>Thread safety: not thread-safe; one thread at a time.
 */
final class MemTableIterator implements InternalIterator {
    private final ConcurrentSkipListMap<InternalKey, byte[]> map;
    private Map.Entry<InternalKey, byte[]> current;
    /** Entries after {@code current} in order, or null after a backward move (made again on demand). */
    private Iterator<Map.Entry<InternalKey, byte[]>> forward;

    MemTableIterator(ConcurrentSkipListMap<InternalKey, byte[]> map) {
        this.map = map;
    }

    @Override
    public boolean valid() {
        return current != null;
    }

    @Override
    public void seekToFirst() {
        startForward(map.entrySet().iterator());
    }

    @Override
    public void seekToLast() {
        forward = null;
        current = map.lastEntry();
    }

    @Override
    public void seek(byte[] userKey) {
        startForward(map.tailMap(InternalKey.probe(userKey, Long.MAX_VALUE), true).entrySet().iterator());
    }

    @Override
    public void seekForPrev(byte[] userKey) {
        forward = null;
        current = map.floorEntry(InternalKey.probe(userKey, Long.MIN_VALUE));
    }

    @Override
    public void next() {
        if (forward == null) {
            forward = map.tailMap(current.getKey(), false).entrySet().iterator();
        }
        current = forward.hasNext() ? forward.next() : null;
    }

    @Override
    public void prev() {
        forward = null;
        current = map.lowerEntry(current.getKey());
    }

    private void startForward(Iterator<Map.Entry<InternalKey, byte[]>> entries) {
        forward = entries;
        current = entries.hasNext() ? entries.next() : null;
    }

    @Override
    public byte[] key() {
        return current.getKey().userKey();
    }

    @Override
    public long sequence() {
        return current.getKey().sequence();
    }

    @Override
    public ValueType type() {
        return current.getKey().type();
    }

    @Override
    public byte[] value() {
        return current.getValue();
    }

    @Override
    public void close() {
        current = null;
        forward = null;
    }
}
