package io.bloomstore.core.db;

import io.bloomstore.core.StoreResources;
import io.bloomstore.core.cache.BlockCache;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The engine's side of {@link StoreResources}: the shared thread pools (flushes; compactions and
 * subcompactions; table reclaiming), the memtable budget, the block cache and the stores open on
 * them. Internal: stores reach it through {@link #of}.
 *
 * <p>Each pool's threads are made on demand up to its size and end after a minute idle, so
 * resources no store uses hold no thread. Every store runs its jobs through a
 * {@link LimitedExecutor} over these pools.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class SharedResources {
    private static final AtomicLong IDS = new AtomicLong();
    private static volatile Function<StoreResources, SharedResources> access;

    private final int backgroundThreads;
    private final int maxOpenFiles;
    private final ThreadPoolExecutor flushPool;
    private final ThreadPoolExecutor compactionPool;
    private final ThreadPoolExecutor reclaimPool;
    private final MemtableBudget memtableBudget;
    private final BlockCache blockCache;
    private final Set<DbImpl> stores = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public SharedResources(long memtableBudgetBytes, long blockCacheBytes, int backgroundThreads, int maxOpenFiles,
                           String nameSuffix) {
        this.backgroundThreads = backgroundThreads;
        this.maxOpenFiles = maxOpenFiles;
        this.flushPool = pool(Math.max(1, backgroundThreads / 4), "bloomstore-flush" + nameSuffix);
        this.compactionPool = pool(backgroundThreads, "bloomstore-compact" + nameSuffix);
        this.reclaimPool = pool(1, "bloomstore-reclaim" + nameSuffix);
        this.memtableBudget = new MemtableBudget(memtableBudgetBytes, "bloomstore-memtable-budget" + nameSuffix);
        this.blockCache = new BlockCache(blockCacheBytes);
    }

    /** A distinct suffix for the threads of a {@code StoreResources} of its own. */
    public static long nextId() {
        return IDS.incrementAndGet();
    }

    /** Called once by {@link StoreResources}: how the engine reaches an instance's internals. */
    public static void setAccess(Function<StoreResources, SharedResources> f) {
        access = f;
    }

    /** The engine's side of {@code r}. */
    static SharedResources of(StoreResources r) {
        Function<StoreResources, SharedResources> f = access;
        if (f == null) {
            // StoreResources' class initialisation sets it; an instance exists, so it ran.
            throw new IllegalStateException("StoreResources is not initialised");
        }
        return f.apply(r);
    }

    private static ThreadPoolExecutor pool(int threads, String name) {
        ThreadPoolExecutor p = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                new DaemonThreads(name, true));
        p.allowCoreThreadTimeOut(true);
        return p;
    }

    ThreadPoolExecutor flushPool() {
        return flushPool;
    }

    ThreadPoolExecutor compactionPool() {
        return compactionPool;
    }

    ThreadPoolExecutor reclaimPool() {
        return reclaimPool;
    }

    public MemtableBudget memtableBudget() {
        return memtableBudget;
    }

    public BlockCache blockCache() {
        return blockCache;
    }

    public int backgroundThreads() {
        return backgroundThreads;
    }

    public int maxOpenFiles() {
        return maxOpenFiles;
    }

    /** Registers an opening store. @throws IllegalStateException when these resources are closed */
    void register(DbImpl store) {
        synchronized (stores) {
            if (closed) {
                throw new IllegalStateException("these StoreResources are closed: a store cannot open on them");
            }
            stores.add(store);
        }
    }

    /** @throws IllegalStateException when these resources are closed */
    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("these StoreResources are closed: a store cannot open on them");
        }
    }

    void unregister(DbImpl store) {
        stores.remove(store);
    }

    public int stores() {
        return stores.size();
    }

    /** Table files the stores hold open now. */
    public int openFiles() {
        int n = 0;
        for (DbImpl s : stores) {
            n += s.tables().openFiles();
        }
        return n;
    }

    /** Ends the pools; refused while a store is open. */
    public void close() {
        synchronized (stores) {
            if (!stores.isEmpty()) {
                throw new IllegalStateException("close the " + stores.size() + " stores open on these StoreResources "
                        + "first");
            }
            closed = true;
        }
        flushPool.shutdown();
        compactionPool.shutdown();
        reclaimPool.shutdown();
        memtableBudget.close();
    }
}
