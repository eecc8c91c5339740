package io.bloomstore.core.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The block cache: decoded (checksum-verified, decompressed and parsed) data blocks, keyed by
 * table file number and block offset, bounded by their total size in bytes (Caffeine, W-TinyLFU
 * eviction, weight = {@link Entry#sizeBytes()}). Holding parsed blocks rather than their bytes
 * lets a hit skip re-checking the block's structure. A capacity of 0 disables it: {@link #get} always misses and
 * {@link #put} keeps nothing.
 *
 * <p>One cache serves one store: file numbers are unique within a store, not across stores.
 * When a table is dropped its blocks can no longer be looked up (its number is never reused),
 * so they would age out anyway; {@link #invalidateFile} frees them at once, at the cost of that
 * file's own entries: the cache keeps the offsets it holds per file (an entry leaves the index
 * when Caffeine evicts it), so dropping a table never scans the whole cache.
 *
 * <p>Point lookups pass a doorkeeper first ({@link #admit}, TinyLFU's): a block that missed is
 * decoded into the cache only when it was asked for before, recently; a block read once is
 * decoded into the reader's scratch array and dropped. So when lookups spread over far more
 * blocks than the cache holds, a miss costs no block allocation on the heap (a 4 KiB block was
 * about two thirds of a 1 KiB-value lookup's garbage), while blocks read again soon — hot keys —
 * are cached on their second read.
 *
 * <p>The Caffeine cache itself is built when the first block is admitted, not with this object:
 * building it loads and links some hundred classes (about 40 ms of a fresh JVM's first store
 * open), which a store that only writes, or a one-shot lookup whose blocks are each read once,
 * never needs.
 *
 * <p>Cached blocks are shared between readers and must be immutable.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class BlockCache {
    /** The block size assumed when sizing the doorkeeper's window from the capacity. */
    private static final int TYPICAL_BLOCK_BYTES = 4096;

    private final long capacityBytes;
    /** Built on the first {@link #put} ({@link #cache()}); null until then and when disabled. */
    private volatile Cache<Key, Entry> cache;
    /** The offsets cached per file: what {@link #invalidateFile} removes. */
    private final Map<Long, Set<Long>> offsetsByFile = new ConcurrentHashMap<>();
    /**
     * The doorkeeper: a Bloom filter (two probes) of the blocks that missed since it was last
     * cleared, sized at 16 bits for each of the {@link #doorkeeperWindow} sightings it holds before
     * it is cleared (FPR about 1.4% when full). Updates race benignly: a lost bit admits a
     * block one read later, a stale one a read earlier.
     */
    private final long[] doorkeeper;
    private final int doorkeeperMask;
    private final int doorkeeperWindow;
    private int doorkeeperSightings;

    private record Key(long fileNumber, long offset) {
    }

    /** A cached block: immutable, and knowing the bytes it holds in memory. */
    public interface Entry {
        /** Bytes this block occupies in memory (its weight in the cache). */
        int sizeBytes();
    }

    /** A cache holding at most {@code capacityBytes} bytes of blocks; 0 disables caching. */
    public BlockCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("block cache capacity must not be negative: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        // The window: twice the blocks the cache holds, so a block is admitted when it is read
        // again within about two cache turnovers.
        long window = Math.max(256, Math.min(1L << 24, 2 * capacityBytes / TYPICAL_BLOCK_BYTES));
        int bits = Integer.highestOneBit((int) (window * 16 - 1)) << 1;
        this.doorkeeper = new long[capacityBytes == 0 ? 1 : bits / Long.SIZE];
        this.doorkeeperMask = bits - 1;
        this.doorkeeperWindow = (int) window;
    }

    /** The Caffeine cache, built now if this is the first block to keep. */
    private Cache<Key, Entry> cache() {
        Cache<Key, Entry> c = cache;
        if (c == null) {
            synchronized (this) {
                c = cache;
                if (c == null) {
                    c = Caffeine.newBuilder()
                            .maximumWeight(capacityBytes)
                            .weigher((Key k, Entry block) -> block.sizeBytes())
                            // Maintenance runs on the calling thread: no hidden pool, deterministic in tests.
                            .executor(Runnable::run)
                            .evictionListener((Key k, Entry block, RemovalCause cause) -> forget(k))
                            .build();
                    cache = c;
                }
            }
        }
        return c;
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

    /** The cached block at {@code offset} of table {@code fileNumber}, or null. */
    public Entry get(long fileNumber, long offset) {
        Cache<Key, Entry> c = cache;
        return c == null ? null : c.getIfPresent(new Key(fileNumber, offset));
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
        long h = (fileNumber * 0x9E3779B97F4A7C15L + offset) * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 29;
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
        if (++doorkeeperSightings >= doorkeeperWindow) {
            doorkeeperSightings = 0;
            Arrays.fill(bits, 0L);
        }
        return false;
    }

    public void put(long fileNumber, long offset, Entry block) {
        if (capacityBytes > 0) {
            Cache<Key, Entry> c = cache();
            offsetsByFile.computeIfAbsent(fileNumber, f -> ConcurrentHashMap.newKeySet()).add(offset);
            c.put(new Key(fileNumber, offset), block);
        }
    }

    private void forget(Key k) {
        Set<Long> offsets = offsetsByFile.get(k.fileNumber());
        if (offsets != null) {
            offsets.remove(k.offset());
        }
    }

    /** Drops every block of table {@code fileNumber} (when the table is closed): costs that file's blocks only. */
    public void invalidateFile(long fileNumber) {
        Set<Long> offsets = offsetsByFile.remove(fileNumber);
        Cache<Key, Entry> c = cache;
        if (c != null && offsets != null) {
            for (long offset : offsets) {
                c.invalidate(new Key(fileNumber, offset));
            }
        }
    }

    /** Bytes of blocks currently held (after pending evictions). */
    public long sizeBytes() {
        Cache<Key, Entry> c = cache;
        if (c == null) {
            return 0;
        }
        c.cleanUp();
        return c.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
    }

    /** Offsets the per-file index holds, all files together: at most the blocks cached (for tests). */
    long indexedBlocks() {
        return offsetsByFile.values().stream().mapToLong(Set::size).sum();
    }

    public void clear() {
        Cache<Key, Entry> c = cache;
        if (c != null) {
            c.invalidateAll();
            offsetsByFile.clear();
        }
        Arrays.fill(doorkeeper, 0L);
    }
}
