package io.bloomstore.core.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
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
 * <p>Cached blocks are shared between readers and must be immutable.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class BlockCache {
    private final long capacityBytes;
    private final Cache<Key, Entry> cache;
    /** The offsets cached per file: what {@link #invalidateFile} removes. */
    private final Map<Long, Set<Long>> offsetsByFile = new ConcurrentHashMap<>();

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
        this.cache = capacityBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher((Key k, Entry block) -> block.sizeBytes())
                // Maintenance runs on the calling thread: no hidden pool, deterministic in tests.
                .executor(Runnable::run)
                .evictionListener((Key k, Entry block, RemovalCause cause) -> forget(k))
                .build();
    }

    /** A cache that holds nothing. */
    public static BlockCache disabled() {
        return new BlockCache(0);
    }

    public boolean enabled() {
        return cache != null;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** The cached block at {@code offset} of table {@code fileNumber}, or null. */
    public Entry get(long fileNumber, long offset) {
        return cache == null ? null : cache.getIfPresent(new Key(fileNumber, offset));
    }

    public void put(long fileNumber, long offset, Entry block) {
        if (cache != null) {
            offsetsByFile.computeIfAbsent(fileNumber, f -> ConcurrentHashMap.newKeySet()).add(offset);
            cache.put(new Key(fileNumber, offset), block);
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
        if (cache != null && offsets != null) {
            for (long offset : offsets) {
                cache.invalidate(new Key(fileNumber, offset));
            }
        }
    }

    /** Bytes of blocks currently held (after pending evictions). */
    public long sizeBytes() {
        if (cache == null) {
            return 0;
        }
        cache.cleanUp();
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
    }

    /** Offsets the per-file index holds, all files together: at most the blocks cached (for tests). */
    long indexedBlocks() {
        return offsetsByFile.values().stream().mapToLong(Set::size).sum();
    }

    public void clear() {
        if (cache != null) {
            cache.invalidateAll();
            offsetsByFile.clear();
        }
    }
}
