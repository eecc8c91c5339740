package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory, sorted buffer of recent writes: every put and delete (a tombstone) with its
 * sequence number, in internal order, in a {@link ConcurrentSkipListMap}. Once its
 * {@link #approximateBytes()} pass the store's limit it becomes immutable and is flushed to an
 * SSTable. Each memtable remembers the WAL segment that holds its entries ({@link #logNumber()}),
 * which can be deleted once the memtable is on disk.
 *
 * <p>Thread safety: one writer at a time (the group-commit leader) with any number of concurrent
 * readers and iterators; readers see entries as soon as they are added, and rely on sequence
 * numbers to hide those that are not yet published.
 */
public final class MemTable {
    /** Per-entry overhead estimate (skip-list node, key object, array headers). */
    private static final int ENTRY_OVERHEAD = 64;

    private final ConcurrentSkipListMap<InternalKey, byte[]> map = new ConcurrentSkipListMap<>(InternalKey.ORDER);
    private final AtomicLong bytes = new AtomicLong();
    private final long logNumber;

    public MemTable(long logNumber) {
        this.logNumber = logNumber;
    }

    public long logNumber() {
        return logNumber;
    }

    public void add(byte[] userKey, long sequence, ValueType type, byte[] value) {
        map.put(new InternalKey(userKey, sequence, type), value);
        bytes.addAndGet(userKey.length + value.length + ENTRY_OVERHEAD);
    }

    /**
     * The newest entry for {@code userKey} with a sequence number ≤ {@code snapshot} (a value or
     * a tombstone), or null when the memtable has none.
     */
    public Map.Entry<InternalKey, byte[]> get(byte[] userKey, long snapshot) {
        Map.Entry<InternalKey, byte[]> e = map.ceilingEntry(InternalKey.probe(userKey, snapshot));
        if (e == null || !Arrays.equals(e.getKey().userKey(), userKey)) {
            return null;
        }
        return e;
    }

    public long approximateBytes() {
        return bytes.get();
    }

    public boolean isEmpty() {
        return map.isEmpty();
    }

    public int entries() {
        return map.size();
    }

    /** An iterator over all entries, tombstones and older versions included. */
    public InternalIterator iterator() {
        return new MemTableIterator(map);
    }
}
