package io.bloomstore.core.memtable;

import io.bloomstore.bloom.Filters;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.rangedel.RangeTombstone;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

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
    /**
     * Lookups a {@linkplain #deferred deferred} memtable answers by scanning its entries before it
     * sorts them into its list: a one-shot {@code get} on a store opened read-only makes one or a
     * few, each a pass over the entries, where adding 12,000 replayed entries to the list cost 25 ms
     * in a fresh JVM.
     */
    static final int SCANNED_LOOKUPS = 8;

    private final InlineSkipList list;
    /** Whole-key filter of every key added (not in a deferred memtable), or null: see {@link MemTableFilter}. */
    private final MemTableFilter filter;
    /** Written by the one writer only (no read-modify-write race). */
    private volatile long bytes;
    private final long logNumber;
    /**
     * A deferred memtable's entries in the order added, until the first use that needs them
     * sorted moves them into {@link #list} ({@link #sorted()}); null once moved, and always for a
     * memtable made with a constructor. Read and replaced under this memtable's lock.
     */
    private volatile List<Entry> pending;
    /** Lookups answered by a scan of {@link #pending} so far (under this memtable's lock). */
    private int scannedLookups;
    /**
     * The range deletions written into this memtable, oldest first: copied on each add (they are
     * rare), so readers take the array without a lock. They leave the memtable for the MANIFEST
     * when it is flushed ({@code docs/architecture.md}, "Range deletion").
     */
    private volatile RangeTombstone[] rangeDeletions = NO_RANGE_DELETIONS;
    private static final RangeTombstone[] NO_RANGE_DELETIONS = new RangeTombstone[0];

    private record Entry(byte[] userKey, long sequence, ValueType type, byte[] value) {
    }

    /**
     * Read views holding this memtable for their readers ({@link #holdForReaders()}); once the
     * last lets go, no reader can reach it, and its arenas are dropped ({@link #releaseForReaders()}).
     */
    private final AtomicInteger readerHolds = new AtomicInteger();

    /** A memtable expecting little (its first value chunk is the smallest). */
    public MemTable(long logNumber) {
        this(logNumber, 0);
    }

    /**
     * A memtable expected to fill to about {@code expectedBytes} ({@code StoreOptions.memtableBytes}):
     * its values go into chunks of about that size (at most 4 MiB).
     */
    public MemTable(long logNumber, long expectedBytes) {
        this(logNumber, expectedBytes, 0);
    }

    /**
     * As {@link #MemTable(long, long)}, with a whole-key filter of {@code filterRatio} ×
     * {@code expectedBytes} ({@code StoreOptions.memtableFilterRatio}; none when that is under 64
     * bytes): lookups of keys it never took skip the search ({@link #get(byte[], long, long)}).
     */
    public MemTable(long logNumber, long expectedBytes, double filterRatio) {
        this.logNumber = logNumber;
        this.list = new InlineSkipList(expectedBytes);
        this.filter = MemTableFilter.forMemtable(expectedBytes, filterRatio);
    }

    /**
     * A memtable for the writes a store opened read-only (or a secondary view) replays from a WAL:
     * {@link #add} keeps each entry as it is (the caller hands its arrays over), and the entries are
     * sorted into the skip list by the first use that needs them in order — an iterator,
     * {@link #approximateBytes()}, or a lookup after the first {@value #SCANNED_LOOKUPS}, which scan
     * the entries instead. A one-shot command that reads a key or two so never builds the list.
     * Adds may go on beside readers (a secondary's catch-up reads on in the WAL), one writer at a
     * time as in any memtable: until the entries are sorted, each add takes this memtable's lock.
     */
    public static MemTable deferred(long logNumber) {
        MemTable m = new MemTable(logNumber, 0);
        m.pending = new ArrayList<>();
        return m;
    }

    public long logNumber() {
        return logNumber;
    }

    /**
     * Adds an entry. Key and value are copied (into the memtable's arenas); the caller keeps its
     * arrays — except in a {@linkplain #deferred deferred} memtable, which keeps them. REQUIRES:
     * one writer at a time.
     */
    public void add(byte[] userKey, long sequence, ValueType type, byte[] value) {
        if (type == ValueType.RANGE_DELETION) {
            addRangeDeletion(userKey, value, sequence);
            return;
        }
        if (pending != null) {
            synchronized (this) {
                // Under the lock: a reader may be scanning the entries or moving them into the list.
                List<Entry> p = pending;
                if (p != null) {
                    p.add(new Entry(userKey, sequence, type, value.length == 0 ? EMPTY : value));
                    return;
                }
            }
        }
        MemTableFilter f = filter;
        if (f != null) {
            f.add(Filters.hash(userKey));
        }
        bytes += list.insert(userKey, sequence, type, value.length == 0 ? EMPTY : value);
    }

    /** A range deletion of [{@code from}, {@code to}) at {@code sequence}; both arrays copied. REQUIRES: one writer at a time. */
    private void addRangeDeletion(byte[] from, byte[] to, long sequence) {
        RangeTombstone[] old = rangeDeletions;
        RangeTombstone[] next = Arrays.copyOf(old, old.length + 1);
        next[old.length] = new RangeTombstone(from.clone(), to.clone(), sequence);
        bytes += from.length + to.length + 32;
        rangeDeletions = next;
    }

    /** The range deletions written into this memtable, oldest first. */
    public List<RangeTombstone> rangeDeletions() {
        return List.of(rangeDeletions);
    }

    /** Whether this memtable holds a range deletion: one volatile read. */
    public boolean hasRangeDeletions() {
        return rangeDeletions.length > 0;
    }

    /** The skip list, with a deferred memtable's entries moved into it first. */
    private InlineSkipList sorted() {
        if (pending != null) {
            synchronized (this) {
                List<Entry> p = pending;
                if (p != null) {
                    long b = 0;
                    for (Entry e : p) {
                        b += list.insert(e.userKey(), e.sequence(), e.type(), e.value());
                    }
                    bytes += b;
                    pending = null;
                }
            }
        }
        return list;
    }

    /**
     * The newest entry for {@code userKey} with a sequence number ≤ {@code snapshot} (a value or
     * a tombstone), or null when the memtable has none. The value is a copy the caller owns.
     */
    public Map.Entry<InternalKey, byte[]> get(byte[] userKey, long snapshot) {
        return get(userKey, filter == null ? 0 : Filters.hash(userKey), snapshot);
    }

    /**
     * As {@link #get(byte[], long)}, given {@code hash}, the key's {@code Filters.hash}: a key the
     * memtable's filter has never seen is answered without a search.
     */
    public Map.Entry<InternalKey, byte[]> get(byte[] userKey, long hash, long snapshot) {
        MemTableFilter f = filter;
        if (f != null && !f.mightContain(hash)) {
            return null;
        }
        if (pending != null) {
            synchronized (this) {
                List<Entry> p = pending;
                if (p != null && scannedLookups < SCANNED_LOOKUPS) {
                    scannedLookups++;
                    return scan(p, userKey, snapshot);
                }
            }
        }
        InlineSkipList list = sorted();
        int node = list.find(userKey, snapshot);
        if (node == InlineSkipList.NONE) {
            return null;
        }
        return Map.entry(new InternalKey(userKey, list.sequence(node), list.type(node)), list.value(node));
    }

    /** As {@link #get}, by a pass over a deferred memtable's entries: the newest that qualifies. */
    private static Map.Entry<InternalKey, byte[]> scan(List<Entry> entries, byte[] userKey, long snapshot) {
        // The length and last byte first: in the interpreter a fresh JVM runs this in, each
        // Arrays.equals is a chain of calls, and most entries differ there.
        int length = userKey.length;
        byte last = length == 0 ? 0 : userKey[length - 1];
        Entry best = null;
        long bestSequence = -1;
        for (int i = 0, n = entries.size(); i < n; i++) {
            Entry e = entries.get(i);
            byte[] k = e.userKey();
            if (k.length == length && (length == 0 || k[length - 1] == last) && Arrays.equals(k, userKey)) {
                long sequence = e.sequence();
                if (sequence <= snapshot && sequence > bestSequence) {
                    best = e;
                    bestSequence = sequence;
                }
            }
        }
        if (best == null) {
            return null;
        }
        byte[] value = best.value().length == 0 ? EMPTY : best.value().clone();
        return Map.entry(new InternalKey(userKey, best.sequence(), best.type()), value);
    }

    /** Arena, key and value bytes taken so far. */
    public long approximateBytes() {
        sorted();
        return bytes;
    }

    /** Whether the memtable holds nothing: no entry and no range deletion. */
    public boolean isEmpty() {
        return entries() == 0 && rangeDeletions.length == 0;
    }

    /** Entries in the skip list (range deletions not counted). */
    public int entries() {
        if (pending != null) {
            synchronized (this) {
                List<Entry> p = pending;
                if (p != null) {
                    return p.size();
                }
            }
        }
        return list.size();
    }

    /** An iterator over all entries, tombstones and older versions included. */
    public InternalIterator iterator() {
        return new MemTableIterator(sorted());
    }

    /** A read view (its version) holds this memtable: readers may reach it until the matching release. */
    public void holdForReaders() {
        readerHolds.incrementAndGet();
    }

    /**
     * A read view let go of this memtable. After the last, no reader can reach it (it left the
     * store's current view, and every reader that found it there is done): its arenas are dropped
     * at once, not when this object is collected. Why: a memtable that lived through a young
     * collection is in the old generation, and until a marking cycle finds it dead its arena's
     * chunks allocated since stay reachable from it, so each young collection copies them and
     * then promotes them (500 stores opened together and then written one by one: some 250 MB of
     * dead memtable chunks copied, and the heap grown for the time it took).
     */
    public void releaseForReaders() {
        int n = readerHolds.decrementAndGet();
        if (n == 0) {
            list.discard();
        } else if (n < 0) {
            throw new IllegalStateException("memtable released by more views than held it");
        }
    }

    /** Whether its arenas were dropped: no reader can reach it any more (for tests and diagnostics). */
    public boolean discarded() {
        return list.discarded();
    }
}
