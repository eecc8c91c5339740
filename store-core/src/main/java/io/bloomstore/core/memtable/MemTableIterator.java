package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An {@link InternalIterator} over a memtable's skip list. Each step is a navigation from the
 * current key, so the iterator stays valid while the writer keeps adding entries (it may or may
 * not see them; readers filter by sequence number anyway).
 *
 * <p>Thread safety: not thread-safe; one thread at a time.
 */
final class MemTableIterator implements InternalIterator {
    private final ConcurrentSkipListMap<InternalKey, byte[]> map;
    private Map.Entry<InternalKey, byte[]> current;

    MemTableIterator(ConcurrentSkipListMap<InternalKey, byte[]> map) {
        this.map = map;
    }

    @Override
    public boolean valid() {
        return current != null;
    }

    @Override
    public void seekToFirst() {
        current = map.firstEntry();
    }

    @Override
    public void seekToLast() {
        current = map.lastEntry();
    }

    @Override
    public void seek(byte[] userKey) {
        current = map.ceilingEntry(InternalKey.probe(userKey, Long.MAX_VALUE));
    }

    @Override
    public void seekForPrev(byte[] userKey) {
        current = map.floorEntry(InternalKey.probe(userKey, Long.MIN_VALUE));
    }

    @Override
    public void next() {
        current = map.higherEntry(current.getKey());
    }

    @Override
    public void prev() {
        current = map.lowerEntry(current.getKey());
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
    }
}
