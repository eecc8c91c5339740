package io.bloomstore.core.cache;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The block cache: decoded (checksum-verified, decompressed and parsed) data blocks, keyed by
 * table file number and block offset, bounded by their total size in bytes
 * ({@link Entry#sizeBytes()}). As RocksDB's {@code LRUCache}: the blocks are spread over shards
 * by a hash of their key (one shard per 512 KiB of capacity, at most 64), each shard a map in
 * least-recently-used order under its own lock, evicting its least recently used blocks once it
 * holds more than its share of the capacity. Holding parsed blocks rather than their bytes lets a
 * hit skip re-checking the block's structure. A capacity of 0 disables it: {@link #get} always
 * misses and {@link #put} keeps nothing.
 *
 * <p>A hit costs a lock of one shard and a hash lookup: little code, which matters to a fresh
 * JVM, whose just-in-time compiler must compile everything a lookup runs (a general-purpose
 * cache library's read path, with its buffers and maintenance, took a third of the compiler's
 * time on the lookup path in a cold process; see {@code docs/benchmarks.md}).
 *
 * <p>Stores share a cache through views ({@link #view()}): file numbers are unique within a
 * store, not across stores, so each view adds its own base above every file number to the keys it
 * uses, and counts the bytes its store's blocks hold ({@link #sizeBytes()} of a view). When a table is dropped its blocks can no longer be looked up (its number is never reused),
 * so they would age out anyway; {@link #invalidateFile} frees them at once, at the cost of that
 * file's own entries: the cache keeps the offsets it holds per file (an entry leaves the index
 * when it is evicted), so dropping a table never scans the whole cache.
 *
 * <p>Point lookups pass a doorkeeper first ({@link #admit}, TinyLFU's): a block that missed is
 * decoded into the cache only when it was asked for before, recently; a block read once is
 * decoded into the reader's scratch array and dropped. So when lookups spread over far more
 * blocks than the cache holds, a miss costs no block allocation on the heap (a 4 KiB block was
 * about two thirds of a 1 KiB-value lookup's garbage), while blocks read again soon — hot keys —
 * are cached on their second read; and a scan of blocks read once does not flush the LRU order.
 *
 * <p>Cached blocks are shared between readers and must be immutable. Their bytes are kept in large
 * slabs ({@link BlockSlabs}, {@link #allocate}), not an array each, so that the collector never
 * copies them.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class BlockCache {
    /** The block size assumed when sizing the doorkeeper's window from the capacity. */
    private static final int TYPICAL_BLOCK_BYTES = 4096;
    /** Capacity per shard below which the cache has fewer shards (RocksDB's {@code min_shard_size}). */
    private static final long MIN_SHARD_BYTES = 512 * 1024;
    private static final int MAX_SHARD_BITS = 6;

    /** Views' key bases are multiples of this: file numbers stay below it. */
    private static final long VIEW_STRIDE = 1L << 40;

    private final long capacityBytes;
    /** Where blocks' bytes are kept; null when the cache is disabled. Shared by the cache and its views. */
    private final BlockSlabs slabs;
    private final Shard[] shards;
    private final int shardMask;
    /** The offsets cached per file: what {@link #invalidateFile} removes. */
    private final Map<Long, Set<Long>> offsetsByFile;
    /** Added to every file number this view is given: 0 for the cache itself. */
    private final long keyBase;
    /** Bytes held per view, by key base; shared by the cache and its views. */
    private final Map<Long, AtomicLong> bytesByBase;
    private final AtomicLong viewBases;
    /**
     * The doorkeeper: a Bloom filter (two probes) of the blocks that missed since it was last
     * cleared, sized at 16 bits for each of the {@link #doorkeeperWindow} sightings it holds before
     * it is cleared (FPR about 1.4% when full). Updates race benignly: a lost bit admits a
     * block one read later, a stale one a read earlier.
     */
    private final long[] doorkeeper;
    private final int doorkeeperMask;
    private final int doorkeeperWindow;
    /** Shared by the cache and its views; updated racily (a lost count clears the doorkeeper a little later). */
    private final int[] doorkeeperSightings;

    /**
     * A block's identity, and (for a cached block) the block and the slab holding its bytes. A
     * shard maps each key to the node it holds for it, the same class: a key's {@code equals}
     * and {@code hashCode} see its file number and offset only. A plain class: a record's equals
     * and hashCode are bootstrapped method handles. Only a shard's {@code probe} is ever changed
     * after it is made; a node's other fields change under its shard's lock.
     */
    static final class Key {
        long fileNumber;
        long offset;
        /** The cached block (for a node). */
        Entry entry;
        /** The slab holding its bytes, or null when it has an array of its own. */
        BlockSlabs.Slab slab;
        /** Whether a shard holds this node now. */
        boolean held;

        Key(long fileNumber, long offset) {
            this.fileNumber = fileNumber;
            this.offset = offset;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.fileNumber == fileNumber && k.offset == offset;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(mix(fileNumber, offset));
        }
    }

    /** One shard: its blocks in access order (least recently used first) and their bytes; guarded by itself. */
    private static final class Shard {
        final LinkedHashMap<Key, Key> blocks = new LinkedHashMap<>(64, 0.75f, true);
        /** The key {@link #get} looks up with, set under the lock: a hit allocates nothing. Never stored. */
        final Key probe = new Key(0, 0);
        final long capacityBytes;
        long bytes;

        Shard(long capacityBytes) {
            this.capacityBytes = capacityBytes;
        }
    }

    /** A cached block: immutable, and knowing the bytes it holds in memory. */
    public interface Entry {
        /** Bytes this block occupies in memory (its weight in the cache). */
        int sizeBytes();

        /**
         * The same block with its {@link #sizeBytes()} bytes copied to {@code array[offset...]}:
         * how the cache moves a block out of a slab it retires ({@link BlockSlabs}). Needed of
         * every entry put with a slab's space.
         */
        default Entry movedTo(byte[] array, int offset) {
            throw new UnsupportedOperationException(getClass().getName() + " cannot be held in a slab");
        }
    }

    /** A cache holding at most {@code capacityBytes} bytes of blocks; 0 disables caching. */
    public BlockCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("block cache capacity must not be negative: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        this.slabs = capacityBytes == 0 ? null : new BlockSlabs(capacityBytes);
        // The window: twice the blocks the cache holds, so a block is admitted when it is read
        // again within about two cache turnovers.
        long window = Math.max(256, Math.min(1L << 24, 2 * capacityBytes / TYPICAL_BLOCK_BYTES));
        int bits = Integer.highestOneBit((int) (window * 16 - 1)) << 1;
        this.doorkeeper = new long[capacityBytes == 0 ? 1 : bits / Long.SIZE];
        this.doorkeeperMask = bits - 1;
        this.doorkeeperWindow = (int) window;
        int shardBits = 0;
        while (shardBits < MAX_SHARD_BITS && capacityBytes >> (shardBits + 1) >= MIN_SHARD_BYTES) {
            shardBits++;
        }
        this.shards = new Shard[capacityBytes == 0 ? 0 : 1 << shardBits];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new Shard(capacityBytes >> shardBits);
        }
        this.shardMask = (1 << shardBits) - 1;
        this.offsetsByFile = new ConcurrentHashMap<>();
        this.keyBase = 0;
        this.bytesByBase = new ConcurrentHashMap<>();
        this.viewBases = new AtomicLong();
        this.doorkeeperSightings = new int[1];
    }

    private BlockCache(BlockCache shared, long keyBase) {
        this.capacityBytes = shared.capacityBytes;
        this.slabs = shared.slabs;
        this.shards = shared.shards;
        this.shardMask = shared.shardMask;
        this.offsetsByFile = shared.offsetsByFile;
        this.doorkeeper = shared.doorkeeper;
        this.doorkeeperMask = shared.doorkeeperMask;
        this.doorkeeperWindow = shared.doorkeeperWindow;
        this.doorkeeperSightings = shared.doorkeeperSightings;
        this.bytesByBase = shared.bytesByBase;
        this.viewBases = shared.viewBases;
        this.keyBase = keyBase;
        bytesByBase.put(keyBase, new AtomicLong());
    }

    /**
     * A view of this cache for one store: the same blocks and capacity, keys of its own. Close it
     * ({@link #closeView()}) when the store closes.
     */
    public BlockCache view() {
        return new BlockCache(this, viewBases.incrementAndGet() * VIEW_STRIDE);
    }

    /** A store closed: drops its remaining blocks' count (its tables dropped their blocks already). */
    public void closeView() {
        if (keyBase != 0) {
            bytesByBase.remove(keyBase);
        }
    }

    /** A cache that holds nothing. */
    public static BlockCache disabled() {
        return new BlockCache(0);
    }

    public boolean enabled() {
        return capacityBytes > 0;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    private static long mix(long fileNumber, long offset) {
        long h = (fileNumber * 0x9E3779B97F4A7C15L + offset) * 0xC2B2AE3D27D4EB4FL;
        return h ^ (h >>> 29);
    }

    private Shard shard(long fileNumber, long offset) {
        return shards[(int) (mix(fileNumber, offset) >>> 40) & shardMask];
    }

    /** The cached block at {@code offset} of table {@code fileNumber}, or null; a hit makes it the most recently used. */
    public Entry get(long fileNumber, long offset) {
        if (capacityBytes == 0) {
            return null;
        }
        fileNumber += keyBase;
        Shard s = shard(fileNumber, offset);
        synchronized (s) {
            s.probe.fileNumber = fileNumber;
            s.probe.offset = offset;
            Key n = s.blocks.get(s.probe);
            return n == null ? null : n.entry;
        }
    }

    /**
     * Whether a block that missed the cache should be decoded into it: true when the doorkeeper
     * saw the block miss before (since it was last cleared); otherwise records this sighting and
     * answers false, and the caller decodes the block for this one read only. Always false when
     * the cache is disabled.
     */
    public boolean admit(long fileNumber, long offset) {
        if (capacityBytes == 0) {
            return false;
        }
        fileNumber += keyBase;
        long h = mix(fileNumber, offset);
        int a = (int) h & doorkeeperMask;
        int b = (int) (h >>> 32) & doorkeeperMask;
        long[] bits = doorkeeper;
        long maskA = 1L << a;
        long maskB = 1L << b;
        if ((bits[a >>> 6] & maskA) != 0 && (bits[b >>> 6] & maskB) != 0) {
            return true;
        }
        bits[a >>> 6] |= maskA;
        bits[b >>> 6] |= maskB;
        if (++doorkeeperSightings[0] >= doorkeeperWindow) {
            doorkeeperSightings[0] = 0;
            Arrays.fill(bits, 0L);
        }
        return false;
    }

    /**
     * Room in a slab for a block of {@code size} bytes about to be cached, its bytes to be copied
     * there and the block {@link #put(long, long, Entry, BlockSlabs.Space) put} with this space;
     * null when the cache is disabled or the block is too large for a slab (then it keeps an array
     * of its own). May retire a slab first ({@link BlockSlabs}): call it holding no lock of the
     * cache's.
     */
    public BlockSlabs.Space allocate(int size) {
        return slabs != null && slabs.fits(size) ? slabs.allocate(size, this) : null;
    }

    /** Caches {@code block}, which has an array of its own, as {@link #put(long, long, Entry, BlockSlabs.Space)}. */
    public void put(long fileNumber, long offset, Entry block) {
        put(fileNumber, offset, block, null);
    }

    /**
     * Caches {@code block} as the most recently used, evicting the shard's least recently used
     * blocks beyond its share. {@code space}: where {@link #allocate} put its bytes, or null when
     * it has an array of its own. A block whose slab was retired since its space was allocated is
     * not cached (its reader still reads it where it is).
     */
    public void put(long fileNumber, long offset, Entry block, BlockSlabs.Space space) {
        if (capacityBytes == 0) {
            return;
        }
        fileNumber += keyBase;
        offsetsByFile.computeIfAbsent(fileNumber, f -> ConcurrentHashMap.newKeySet()).add(offset);
        Key n = new Key(fileNumber, offset);
        n.entry = block;
        Shard s = shard(fileNumber, offset);
        synchronized (s) {
            if (space != null) {
                if (!space.slab.register(n, block.sizeBytes())) {
                    if (!s.blocks.containsKey(n)) {
                        forget(n);
                    }
                    return;
                }
                n.slab = space.slab;
            }
            n.held = true;
            Key old = s.blocks.put(n, n);
            int delta = block.sizeBytes();
            if (old != null) {
                delta -= old.entry.sizeBytes();
                release(old);
            }
            s.bytes += delta;
            count(fileNumber, delta);
            Iterator<Map.Entry<Key, Key>> eldest = s.blocks.entrySet().iterator();
            while (s.bytes > s.capacityBytes && eldest.hasNext()) {
                Key e = eldest.next().getValue();
                int size = e.entry.sizeBytes();
                s.bytes -= size;
                count(e.fileNumber, -size);
                eldest.remove();
                forget(e);
                release(e);
            }
        }
    }

    /** A node left its shard: its slab has its bytes back as dead space. Under the shard's lock. */
    private static void release(Key n) {
        n.held = false;
        if (n.slab != null) {
            n.slab.release(n.entry.sizeBytes());
        }
    }

    /**
     * Moves the blocks still cached among {@code residents} (a retired slab's) to the slab being
     * filled, as the most recently used; called holding no lock of the cache's.
     */
    void moveAll(List<Key> residents) {
        for (Key n : residents) {
            Shard s = shard(n.fileNumber, n.offset);
            synchronized (s) {
                if (!n.held) {
                    continue;
                }
                n.held = false;
                int size = n.entry.sizeBytes();
                BlockSlabs.Space space = slabs.allocateForMove(size);
                Key m = new Key(n.fileNumber, n.offset);
                m.entry = n.entry.movedTo(space.array(), space.offset());
                if (!space.slab.register(m, size)) {
                    s.blocks.remove(n);
                    s.bytes -= size;
                    count(n.fileNumber, -size);
                    forget(n);
                    continue;
                }
                m.slab = space.slab;
                m.held = true;
                s.blocks.put(m, m);
            }
        }
    }

    /** Counts {@code delta} bytes to the view whose keys {@code key} (a file number with its base) belongs to. */
    private void count(long key, long delta) {
        AtomicLong bytes = bytesByBase.get(key - key % VIEW_STRIDE);
        if (bytes != null) {
            bytes.addAndGet(delta);
        }
    }

    private void forget(Key k) {
        Set<Long> offsets = offsetsByFile.get(k.fileNumber);
        if (offsets != null) {
            offsets.remove(k.offset);
        }
    }

    /** Drops every block of table {@code fileNumber} (when the table is closed): costs that file's blocks only. */
    public void invalidateFile(long fileNumber) {
        fileNumber += keyBase;
        Set<Long> offsets = offsetsByFile.remove(fileNumber);
        if (offsets == null) {
            return;
        }
        for (long offset : offsets) {
            Shard s = shard(fileNumber, offset);
            synchronized (s) {
                Key old = s.blocks.remove(new Key(fileNumber, offset));
                if (old != null) {
                    int size = old.entry.sizeBytes();
                    s.bytes -= size;
                    count(fileNumber, -size);
                    release(old);
                }
            }
        }
    }

    /** Bytes of blocks currently held: all of them for the cache, its store's for a view. */
    public long sizeBytes() {
        if (keyBase != 0) {
            AtomicLong bytes = bytesByBase.get(keyBase);
            return bytes == null ? 0 : Math.max(0, bytes.get());
        }
        long total = 0;
        for (Shard s : shards) {
            synchronized (s) {
                total += s.bytes;
            }
        }
        return total;
    }

    /**
     * Bytes of the slabs holding cached blocks, dead space included: at most
     * {@link BlockSlabs#budgetBytes()} (the capacity and a slack), but for a slab or two while one is retired.
     */
    public long slabBytes() {
        return slabs == null ? 0 : slabs.heldBytes();
    }

    /** Offsets the per-file index holds, all files together: at most the blocks cached (for tests). */
    long indexedBlocks() {
        long total = 0;
        for (Set<Long> offsets : offsetsByFile.values()) {
            total += offsets.size();
        }
        return total;
    }

    public void clear() {
        for (Shard s : shards) {
            synchronized (s) {
                for (Key n : s.blocks.values()) {
                    release(n);
                }
                s.blocks.clear();
                s.bytes = 0;
            }
        }
        if (slabs != null) {
            slabs.clear();
        }
        offsetsByFile.clear();
        for (AtomicLong b : bytesByBase.values()) {
            b.set(0);
        }
        Arrays.fill(doorkeeper, 0L);
    }
}
