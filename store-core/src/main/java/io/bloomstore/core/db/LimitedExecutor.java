package io.bloomstore.core.db;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One store's view of a pool the stores of a {@code StoreResources} share: runs at most
 * {@code limit} of this store's tasks at once on the shared pool, queueing the rest here in
 * submission order, so a store keeps the concurrency its options give it (one flush, up to
 * {@code maxBackgroundJobs} compactions) while the threads are the pool's, not the store's. As
 * RocksDB's instances share their {@code Env}'s thread pools.
 *
 * <p>{@link #shutdown()} refuses new tasks; queued ones still run, as a
 * {@link java.util.concurrent.ThreadPoolExecutor}'s do; {@link #awaitTermination} waits until this
 * store's tasks are all done — never for other stores' tasks. {@link #shutdownNow()} drops the
 * queued tasks.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class LimitedExecutor extends AbstractExecutorService {
    private final Executor pool;
    private final int limit;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    /** Guarded by this. */
    private int running;
    /** Guarded by this. */
    private boolean shutdown;

    LimitedExecutor(Executor pool, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        this.pool = pool;
        this.limit = limit;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException("the store's background work is shut down");
            }
            if (running >= limit) {
                queue.add(task);
                return;
            }
            running++;
        }
        start(task);
    }

    private void start(Runnable task) {
        try {
            pool.execute(new Step(task));
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                running--;
                notifyAll();
            }
            throw e;
        }
    }

    /** Runs one task, then hands this store's next queued task to the pool. */
    private final class Step implements Runnable {
        private final Runnable task;

        Step(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } finally {
                Runnable next;
                synchronized (LimitedExecutor.this) {
                    next = queue.poll();
                    if (next == null) {
                        running--;
                        LimitedExecutor.this.notifyAll();
                    }
                }
                if (next != null) {
                    start(next);
                }
            }
        }
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
        notifyAll();
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> dropped = List.copyOf(queue);
        queue.clear();
        notifyAll();
        return dropped;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && running == 0 && queue.isEmpty();
    }

    @Override
    public synchronized boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!(shutdown && running == 0 && queue.isEmpty())) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
