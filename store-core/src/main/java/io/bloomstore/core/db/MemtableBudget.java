package io.bloomstore.core.db;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * One memtable budget over many stores, as RocksDB's {@code WriteBufferManager}: each store
 * charges what its memtables hold (the active one and the immutable ones waiting for their flush)
 * to its {@link Account}; when the sum reaches seven eighths of the budget the largest active
 * memtable is switched, which queues its flush, whatever that store's write rate (and every
 * {@value #OLDEST_EVERY}th switch takes the memtable that has held writes longest instead, so a
 * store that takes one write a minute is flushed within a bounded number of switches); at the budget,
 * writers wait ({@link #awaitRoom}) until flushes bring the sum below it. The switch runs on this
 * budget's one thread, never on a writer's, so no store's lock is taken while another's is held.
 *
 * <p>Thread safety: safe for concurrent use; an account is updated under its store's mutex.
 */
public final class MemtableBudget {
    /** Every this many switches, the oldest non-empty memtable is switched instead of the largest. */
    static final int OLDEST_EVERY = 8;

    private final long budgetBytes;
    /** Switches so far; only the budget's thread touches it. */
    private long switches;
    private final long flushAtBytes;
    private final AtomicLong used = new AtomicLong();
    private final Set<Account> accounts = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean switching = new AtomicBoolean();
    private final ExecutorService switcher;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    /** {@link #switchLargest} as a task (a class, not a method reference: no lambda linked on the write path). */
    private final Runnable switchTask = new Runnable() {
        @Override
        public void run() {
            switchLargest();
        }
    };

    MemtableBudget(long budgetBytes, String threadName) {
        this.budgetBytes = budgetBytes;
        this.flushAtBytes = budgetBytes - budgetBytes / 8;
        ThreadPoolExecutor t = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                new DaemonThreads(threadName, false));
        t.allowCoreThreadTimeOut(true);
        this.switcher = t;
    }

    /**
     * What one store's memtable may expect to fill to before the budget flushes it: the budget
     * shared out among the stores holding an account (at least 64 KiB), so that a memtable sizes its
     * first value chunk and its filter for that, not for {@code memtableBytes} — with 500 stores each
     * one's first chunk of 4 MiB was 2 GiB of heap for memtables the budget kept near 0.5 MiB each.
     */
    public long shareBytes() {
        return Math.max(64 << 10, budgetBytes / Math.max(1, accounts.size()));
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    public long usedBytes() {
        return used.get();
    }

    /** One store's share: what it charged last, and how to switch its active memtable. */
    final class Account {
        private final BooleanSupplier switchMemtable;
        /** Guarded by the store's mutex. */
        private long charged;
        private volatile long activeBytes;
        /** When the active memtable took its first write ({@link System#nanoTime()}); guarded as {@code charged}. */
        private volatile long activeSince;

        Account(BooleanSupplier switchMemtable) {
            this.switchMemtable = switchMemtable;
        }

        /**
         * With the store's mutex held: its memtables hold {@code totalBytes} now, {@code activeBytes}
         * of it in the active one.
         */
        void update(long totalBytes, long activeBytes) {
            if (activeBytes > 0 && this.activeBytes == 0) {
                activeSince = System.nanoTime();
            }
            this.activeBytes = activeBytes;
            long delta = totalBytes - charged;
            charged = totalBytes;
            if (delta == 0) {
                return;
            }
            long now = used.addAndGet(delta);
            if (delta > 0 && now >= flushAtBytes) {
                requestSwitch();
            } else if (delta < 0 && now - delta >= budgetBytes && now < budgetBytes) {
                signalRoom();
            }
        }

        /** The store closed: its memtables leave the budget. */
        void close() {
            accounts.remove(this);
            long was = charged;
            charged = 0;
            if (was != 0) {
                used.addAndGet(-was);
                signalRoom();
            }
        }
    }

    /**
     * Opens an account; {@code switchMemtable} switches the store's active memtable if it can
     * without waiting (and updates the account), answering whether it did.
     */
    Account open(BooleanSupplier switchMemtable) {
        Account a = new Account(switchMemtable);
        accounts.add(a);
        return a;
    }

    /**
     * Before a write: waits while the stores' memtables hold the whole budget, having asked for the
     * largest to be switched and flushed. Returns at once otherwise (one volatile read).
     */
    void awaitRoom() throws InterruptedException {
        if (used.get() < budgetBytes) {
            return;
        }
        requestSwitch();
        lock.lock();
        try {
            while (used.get() >= budgetBytes) {
                // Timed: a switch that found nothing to switch is asked again.
                if (!room.await(20, TimeUnit.MILLISECONDS)) {
                    requestSwitch();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void signalRoom() {
        lock.lock();
        try {
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Has the budget's thread switch the largest active memtable, unless a switch is on its way. */
    private void requestSwitch() {
        if (!switching.compareAndSet(false, true)) {
            return;
        }
        try {
            switcher.execute(switchTask);
        } catch (RejectedExecutionException e) {
            switching.set(false);
        }
    }

    private void switchLargest() {
        boolean switched = false;
        try {
            boolean oldest = ++switches % OLDEST_EVERY == 0;
            Account chosen = null;
            for (Account a : accounts) {
                if (a.activeBytes > 0 && (chosen == null || (oldest ? a.activeSince - chosen.activeSince < 0
                        : a.activeBytes > chosen.activeBytes))) {
                    chosen = a;
                }
            }
            switched = chosen != null && chosen.switchMemtable.getAsBoolean();
        } finally {
            switching.set(false);
        }
        if (!switched || used.get() < flushAtBytes) {
            // Nothing could be switched now: a waiting writer asks again shortly.
            return;
        }
        long active = 0;
        for (Account a : accounts) {
            active += a.activeBytes;
        }
        // Still over, and not only with memtables already waiting for their flush: the next largest.
        if (active > 0 && used.get() - active < flushAtBytes) {
            requestSwitch();
        }
    }

    void close() {
        switcher.shutdown();
    }
}
