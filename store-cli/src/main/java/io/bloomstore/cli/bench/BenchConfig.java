package io.bloomstore.cli.bench;

import io.bloomstore.bloom.BlockedBloomFilter;
import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;

/**
 * Immutable settings of one benchmark run, the same for every engine so that the engines do
 * the same work with the same resources: key count and sizes, threads, operations per read
 * workload, filter bits per key and kind, block cache and memtable sizes, compression.
 *
 * <p>Thread safety: immutable.
 *
 * @param keys            keys loaded by a fill workload (and looked up by the reads)
 * @param keySize         bytes per key, at least {@link KeySpace#MIN_KEY_SIZE}
 * @param valueSize       bytes per value
 * @param threads         worker threads per workload (readwhilewriting adds one writer)
 * @param reads           operations per read workload, shared among the threads
 * @param durationSeconds time cap per workload in seconds, 0 for none
 * @param bitsPerKey      filter bits per key
 * @param filterKind      filter kind for BloomStore (RocksDB always uses its own Bloom filter)
 * @param blockCacheBytes data-block cache size, the same for every engine
 * @param memtableBytes   memtable size before a flush to a table, the same for every engine
 * @param compression     data-block compression, the same for every engine
 * @param missingFraction fraction of absent keys in readmixed
 * @param scanLength      entries read after each seek in seekrandom
 * @param seed            seed of every random choice (key order, lookups, values)
 * @param distribution    how lookups and updates choose among the loaded keys
 * @param directReads     data blocks read with O_DIRECT, past the page cache (BloomStore's
 *                        {@code directReads}, RocksDB's {@code use_direct_reads}), so that block-cache
 *                        misses are device reads
 * @param walBufferBytes  BloomStore's {@code walBufferBytes}: 0 (its default) hands every write's WAL
 *                        record to the operating system before the write returns; above 0 writes
 *                        wait in the process until that many bytes gather, the durability of
 *                        MVStore, which has no log ({@code --wal-buffer})
 */
public record BenchConfig(int keys, int keySize, int valueSize, int threads, long reads, long durationSeconds,
        double bitsPerKey, FilterKind filterKind, long blockCacheBytes, long memtableBytes,
        Compression compression, double missingFraction, int scanLength, long seed, Distribution distribution,
        boolean directReads, int walBufferBytes) {

    /** Block compression applied by every engine. */
    public enum Compression { NONE, LZ4 }

    /** How lookups and updates choose keys: all equally, or zipfian (see {@link KeyChooser}). */
    /**
     * Keys of lookups and updates: uniform, zipfian (scattered over the key space), or latest
     * (YCSB's: zipfian over how recently a key was loaded, the last loaded most popular).
     */
    public enum Distribution { UNIFORM, ZIPFIAN, LATEST }

    public BenchConfig {
        requirePositive("keys", keys);
        if (keySize < KeySpace.MIN_KEY_SIZE) {
            throw new IllegalArgumentException("key size must be at least " + KeySpace.MIN_KEY_SIZE + " bytes: " + keySize);
        }
        requirePositive("value size", valueSize);
        requirePositive("threads", threads);
        requirePositive("reads", reads);
        if (durationSeconds < 0) {
            throw new IllegalArgumentException("duration must not be negative: " + durationSeconds);
        }
        if (!(bitsPerKey > 0 && bitsPerKey <= 64)) {
            throw new IllegalArgumentException("bits per key must be in (0, 64]: " + bitsPerKey);
        }
        requirePositive("block cache bytes", blockCacheBytes);
        requirePositive("memtable bytes", memtableBytes);
        if (!(missingFraction >= 0 && missingFraction <= 1)) {
            throw new IllegalArgumentException("missing fraction must be in [0, 1]: " + missingFraction);
        }
        requirePositive("scan length", scanLength);
        if (walBufferBytes < 0) {
            throw new IllegalArgumentException("WAL buffer bytes must not be negative: " + walBufferBytes);
        }
        if (filterKind == null || compression == null || distribution == null) {
            throw new IllegalArgumentException("filter kind, compression and distribution are required");
        }
        if (filterKind != FilterKind.BLOOM && filterKind != FilterKind.BLOCKED_BLOOM && filterKind != FilterKind.BINARY_FUSE
                && filterKind != FilterKind.RIBBON) {
            throw new IllegalArgumentException("a table filter is bloom, blocked, fuse or ribbon, not "
                    + filterKind.cliName());
        }
    }

    /** Settings with BloomStore's WAL handed over at every write ({@code walBufferBytes} 0). */
    public BenchConfig(int keys, int keySize, int valueSize, int threads, long reads, long durationSeconds,
                       double bitsPerKey, FilterKind filterKind, long blockCacheBytes, long memtableBytes,
                       Compression compression, double missingFraction, int scanLength, long seed,
                       Distribution distribution, boolean directReads) {
        this(keys, keySize, valueSize, threads, reads, durationSeconds, bitsPerKey, filterKind, blockCacheBytes,
                memtableBytes, compression, missingFraction, scanLength, seed, distribution, directReads, 0);
    }

    /** Settings reading through the page cache (no direct reads). */
    public BenchConfig(int keys, int keySize, int valueSize, int threads, long reads, long durationSeconds,
                       double bitsPerKey, FilterKind filterKind, long blockCacheBytes, long memtableBytes,
                       Compression compression, double missingFraction, int scanLength, long seed,
                       Distribution distribution) {
        this(keys, keySize, valueSize, threads, reads, durationSeconds, bitsPerKey, filterKind, blockCacheBytes,
                memtableBytes, compression, missingFraction, scanLength, seed, distribution, false);
    }

    /** The defaults of {@code bloomstore bench}. */
    public static BenchConfig defaults() {
        return new BenchConfig(1_000_000, 16, 100, 1, 200_000, 0, 10, FilterKind.RIBBON,
                8L << 20, 4L << 20, Compression.LZ4, 0.5, 10, 42, Distribution.UNIFORM);
    }

    public BenchConfig withReads(long newReads) {
        return new BenchConfig(keys, keySize, valueSize, threads, newReads, durationSeconds, bitsPerKey, filterKind,
                blockCacheBytes, memtableBytes, compression, missingFraction, scanLength, seed, distribution,
                directReads, walBufferBytes);
    }

    public BenchConfig withMemtableBytes(long newMemtableBytes) {
        return new BenchConfig(keys, keySize, valueSize, threads, reads, durationSeconds, bitsPerKey, filterKind,
                blockCacheBytes, newMemtableBytes, compression, missingFraction, scanLength, seed, distribution,
                directReads, walBufferBytes);
    }

    public BenchConfig withKeys(int newKeys) {
        return new BenchConfig(newKeys, keySize, valueSize, threads, reads, durationSeconds, bitsPerKey, filterKind,
                blockCacheBytes, memtableBytes, compression, missingFraction, scanLength, seed, distribution,
                directReads, walBufferBytes);
    }

    public BenchConfig withWalBufferBytes(int newWalBufferBytes) {
        return new BenchConfig(keys, keySize, valueSize, threads, reads, durationSeconds, bitsPerKey, filterKind,
                blockCacheBytes, memtableBytes, compression, missingFraction, scanLength, seed, distribution,
                directReads, newWalBufferBytes);
    }

    public BenchConfig withDirectReads(boolean newDirectReads) {
        return new BenchConfig(keys, keySize, valueSize, threads, reads, durationSeconds, bitsPerKey, filterKind,
                blockCacheBytes, memtableBytes, compression, missingFraction, scanLength, seed, distribution,
                newDirectReads, walBufferBytes);
    }

    /** Theoretical false-positive rate of a standard Bloom filter with this many bits per key, at the optimal k. */
    public static double bloomFpr(double bitsPerKey) {
        return BloomMath.fpr(scaledBits(bitsPerKey), THEORY_KEYS, BloomMath.optimalK(bitsPerKey));
    }

    /** Theoretical rate of a Bloom filter blocked into 512-bit cache lines, at the optimal k. */
    public static double blockedBloomFpr(double bitsPerKey) {
        return BloomMath.blockedFpr(scaledBits(bitsPerKey), THEORY_KEYS, BlockedBloomFilter.optimalK(bitsPerKey),
                BlockedBloomFilter.BLOCK_BITS);
    }

    /** Theoretical rate of the configured filter kind at the configured bits per key. */
    public double theoreticalFpr() {
        return switch (filterKind) {
            case BLOCKED_BLOOM -> blockedBloomFpr(bitsPerKey);
            case BINARY_FUSE -> Filters.fuseFpr(bitsPerKey);
            case RIBBON -> Filters.ribbonFpr(bitsPerKey);
            default -> bloomFpr(bitsPerKey);
        };
    }

    /** Key count the theory is evaluated at: large enough that rounding of m does not matter. */
    private static final long THEORY_KEYS = 1_000_000;

    private static long scaledBits(double bitsPerKey) {
        return Math.round(bitsPerKey * THEORY_KEYS);
    }

    private static void requirePositive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + value);
        }
    }
}
