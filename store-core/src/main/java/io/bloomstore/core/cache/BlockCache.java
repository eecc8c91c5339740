package io.bloomstore.core.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * The block cache: decoded (checksum-verified, decompressed) data blocks, keyed by table file
 * number and block offset, bounded by their total size in bytes (Caffeine, W-TinyLFU eviction,
 * weight = block bytes). A capacity of 0 disables it: {@link #get} always misses and
 * {@link #put} keeps nothing.
 *
 * <p>One cache serves one store: file numbers are unique within a store, not across stores.
 * When a table is dropped its blocks can no longer be looked up (its number is never reused),
 * so they would age out anyway; {@link #invalidateFile} frees them at once.
 *
 * <p>Cached arrays are shared between readers and must never be modified.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class BlockCache {
    private final long capacityBytes;
    private final Cache<Key, byte[]> cache;

    private record Key(long fileNumber, long offset) {
    }

    /** A cache holding at most {@code capacityBytes} bytes of blocks; 0 disables caching. */
    public BlockCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("block cache capacity must not be negative: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        this.cache = capacityBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher((Key k, byte[] block) -> block.length)
                // Maintenance runs on the calling thread: no hidden pool, deterministic in tests.
                .executor(Runnable::run)
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

    /** The cached contents of the block at {@code offset} of table {@code fileNumber}, or null. */
    public byte[] get(long fileNumber, long offset) {
        return cache == null ? null : cache.getIfPresent(new Key(fileNumber, offset));
    }

    public void put(long fileNumber, long offset, byte[] contents) {
        if (cache != null) {
            cache.put(new Key(fileNumber, offset), contents);
        }
    }

    /** Drops every block of table {@code fileNumber} (when the table is deleted). */
    public void invalidateFile(long fileNumber) {
        if (cache != null) {
            cache.asMap().keySet().removeIf(k -> k.fileNumber() == fileNumber);
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

    public void clear() {
        if (cache != null) {
            cache.invalidateAll();
        }
    }
}
