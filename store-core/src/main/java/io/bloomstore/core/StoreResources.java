package io.bloomstore.core;

import io.bloomstore.core.db.SharedResources;

/**
 * What the stores of one process share, as RocksDB's {@code Env} (thread pools), {@code Cache} and
 * {@code WriteBufferManager}: one pool of background threads, one memtable budget and one block
 * cache. A service holding hundreds of stores (a Kafka Streams instance, a multi-tenant service)
 * then has as many BloomStore threads, and at most as much memtable and cache memory, as one with a
 * single store.
 *
 * <pre>{@code
 * StoreResources r = StoreResources.builder().memtableBudgetBytes(256 << 20).blockCacheBytes(512 << 20)
 *         .backgroundThreads(4).build();
 * Store a = Store.open(dirA, StoreOptions.builder().resources(r).build());
 * ...
 * a.close(); b.close();
 * r.close();
 * }</pre>
 *
 * <ul>
 *   <li><b>Threads.</b> Flushes run on {@code max(1, backgroundThreads / 4)} threads, compactions
 *       and subcompactions on {@code backgroundThreads} others (RocksDB's HIGH and LOW pools), a
 *       table's closing and deletion on one more; every store keeps the concurrency its options
 *       give it (one flush, up to {@code maxBackgroundJobs} compactions) within them, its jobs
 *       queued in order. Idle threads end after a minute. A store's close cancels and waits for its
 *       own jobs only.
 *   <li><b>Memtables.</b> When the stores' memtables together reach seven eighths of
 *       {@code memtableBudgetBytes}, the largest is switched and flushed (whatever its write rate,
 *       so a store that takes one write a minute is still flushed); at the budget, writers wait
 *       until flushes bring the sum below it. Each store's own {@code memtableBytes} still applies.
 *   <li><b>Block cache.</b> One cache of {@code blockCacheBytes} for every store that does not set
 *       {@code StoreOptions.blockCacheBytes} itself; each store's hits, misses and cached bytes stay
 *       in its own {@code stats()}. Its blocks' bytes sit in slabs the collector never copies,
 *       which hold evicted blocks' space until a slab is retired: up to an eighth more than
 *       {@code blockCacheBytes} (two slabs more for a small cache).
 * </ul>
 *
 * <p>{@link #shared()} is the JVM-wide instance every store uses unless given another: memtable
 * budget a quarter of the maximum heap (at least 64 MiB, at most 1 GiB), block cache an eighth of
 * it (at least 32 MiB, at most 512 MiB), as many compaction threads as processors (at least 2). It
 * is never closed. A {@code StoreResources} of one's own is closed by its owner after its stores;
 * closing it with stores open is refused.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class StoreResources implements AutoCloseable {
    private static final class Shared {
        static final StoreResources INSTANCE = new StoreResources(defaultsFromMachine(), true);
    }

    static {
        // A class, not a lambda: a one-shot command's open would link the JVM's first lambda (some 6 ms).
        SharedResources.setAccess(new Access());
    }

    private final SharedResources shared;
    private final boolean jvmWide;

    /** How the engine reaches an instance's internals. */
    private static final class Access implements java.util.function.Function<StoreResources, SharedResources> {
        @Override
        public SharedResources apply(StoreResources r) {
            return r.shared;
        }
    }

    private StoreResources(Builder b, boolean jvmWide) {
        this.shared = new SharedResources(b.memtableBudgetBytes, b.blockCacheBytes, b.backgroundThreads,
                b.maxOpenFiles, jvmWide ? "" : "-" + SharedResources.nextId());
        this.jvmWide = jvmWide;
    }

    /** The JVM-wide resources every store uses unless its options name others; sized from the machine (see above). */
    public static StoreResources shared() {
        return Shared.INSTANCE;
    }

    public static Builder builder() {
        return new Builder();
    }

    private static Builder defaultsFromMachine() {
        long heap = Runtime.getRuntime().maxMemory();
        return builder().memtableBudgetBytes(Math.max(64L << 20, Math.min(1L << 30, heap / 4)))
                .blockCacheBytes(Math.max(32L << 20, Math.min(512L << 20, heap / 8)))
                .backgroundThreads(Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** Bytes the stores' memtables hold now, the immutable ones waiting for their flush included. */
    public long memtableBytes() {
        return shared.memtableBudget().usedBytes();
    }

    /** Bytes of blocks the shared block cache holds now. */
    public long blockCacheUsedBytes() {
        return shared.blockCache().sizeBytes();
    }

    /** Table files the stores hold open now through these resources. */
    public int openFiles() {
        return shared.openFiles();
    }

    /** Stores open on these resources now. */
    public int stores() {
        return shared.stores();
    }

    public long memtableBudgetBytes() {
        return shared.memtableBudget().budgetBytes();
    }

    public long blockCacheBytes() {
        return shared.blockCache().capacityBytes();
    }

    public int backgroundThreads() {
        return shared.backgroundThreads();
    }

    public int maxOpenFiles() {
        return shared.maxOpenFiles();
    }

    /**
     * Ends the threads. {@link #shared()} cannot be closed.
     *
     * @throws IllegalStateException when stores are still open on these resources, or this is {@link #shared()}
     */
    @Override
    public void close() {
        if (jvmWide) {
            throw new IllegalStateException("StoreResources.shared() is the JVM's and is never closed");
        }
        shared.close();
    }

    @Override
    public String toString() {
        return "StoreResources[memtableBudgetBytes=" + memtableBudgetBytes() + ", blockCacheBytes=" + blockCacheBytes()
                + ", backgroundThreads=" + backgroundThreads() + ", maxOpenFiles=" + maxOpenFiles() + ", stores="
                + stores() + "]";
    }

    /** Builds {@link StoreResources}; every setting checked at {@link #build()}. */
    public static final class Builder {
        private long memtableBudgetBytes = 256L << 20;
        private long blockCacheBytes = 256L << 20;
        private int backgroundThreads = 2;
        private int maxOpenFiles = 4096;

        private Builder() {
        }

        /** The stores' memtables together (at least 1 MiB; default 256 MiB). */
        public Builder memtableBudgetBytes(long v) {
            memtableBudgetBytes = v;
            return this;
        }

        /** The shared block cache (0 disables it; default 256 MiB). */
        public Builder blockCacheBytes(long v) {
            blockCacheBytes = v;
            return this;
        }

        /** Compaction threads, at least 1 (default 2); flushes get a quarter as many more, at least 1. */
        public Builder backgroundThreads(int v) {
            backgroundThreads = v;
            return this;
        }

        /** Table files the stores may hold open together, at least 20 (default 4096). */
        public Builder maxOpenFiles(int v) {
            maxOpenFiles = v;
            return this;
        }

        public StoreResources build() {
            if (memtableBudgetBytes < (1L << 20)) {
                throw new IllegalArgumentException("memtableBudgetBytes must be at least 1 MiB: " + memtableBudgetBytes);
            }
            if (blockCacheBytes < 0) {
                throw new IllegalArgumentException("blockCacheBytes must not be negative: " + blockCacheBytes);
            }
            if (backgroundThreads < 1) {
                throw new IllegalArgumentException("backgroundThreads must be at least 1: " + backgroundThreads);
            }
            if (maxOpenFiles < 20) {
                throw new IllegalArgumentException("maxOpenFiles must be at least 20: " + maxOpenFiles);
            }
            return new StoreResources(this, false);
        }
    }
}
