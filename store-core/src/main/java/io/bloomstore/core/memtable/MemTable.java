package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.Map;

/**
 * The in-memory, sorted buffer of recent writes: every put and delete (a tombstone) with its
 * sequence number, in internal order, in an {@link InlineSkipList} (keys and towers in one arena,
 * values copied into another of large arrays). Once its {@link #approximateBytes()} pass
 * the store's limit it becomes immutable and is flushed to an SSTable. Each memtable remembers the
 * WAL segment that holds its entries ({@link #logNumber()}), which can be deleted once the
 * memtable is on disk.
 *
 * <p>Thread safety: one writer at a time (the group-commit leader) with any number of concurrent
 * readers and iterators; readers see entries as soon as they are added, and rely on sequence
 * numbers to hide those that are not yet published.
 */
public final class MemTable {
    private static final byte[] EMPTY = new byte[0];

    private final InlineSkipList list;
    /** Written by the one writer only (no read-modify-write race). */
    private volatile long bytes;
    private final long logNumber;

    /** A memtable expecting little (its first value chunk is the smallest). */
    public MemTable(long logNumber) {
        this(logNumber, 0);
    }

    /**
     * A memtable expected to fill to about {@code expectedBytes} ({@code StoreOptions.memtableBytes}):
     * its values go into chunks of about that size (at most 4 MiB).
     */
    public MemTable(long logNumber, long expectedBytes) {
        this.logNumber = logNumber;
        this.list = new InlineSkipList(expectedBytes);
    }

    public long logNumber() {
        return logNumber;
    }

    /**
     * Adds an entry. Key and value are copied (into the memtable's arenas); the caller keeps its
     * arrays. REQUIRES: one writer at a time.
     */
    public void add(byte[] userKey, long sequence, ValueType type, byte[] value) {
        bytes += list.insert(userKey, sequence, type, value.length == 0 ? EMPTY : value);
    }

    /**
     * The newest entry for {@code userKey} with a sequence number ≤ {@code snapshot} (a value or
     * a tombstone), or null when the memtable has none. The value is a copy the caller owns.
     */
    public Map.Entry<InternalKey, byte[]> get(byte[] userKey, long snapshot) {
        int node = list.find(userKey, snapshot);
        if (node == InlineSkipList.NONE) {
            return null;
        }
        return Map.entry(new InternalKey(userKey, list.sequence(node), list.type(node)), list.value(node));
    }

    /** Arena, key and value bytes taken so far. */
    public long approximateBytes() {
        return bytes;
    }

    public boolean isEmpty() {
        return list.size() == 0;
    }

    public int entries() {
        return list.size();
    }

    /** An iterator over all entries, tombstones and older versions included. */
    public InternalIterator iterator() {
        return new MemTableIterator(list);
    }
}
