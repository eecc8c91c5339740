package io.bloomstore.core.db;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the store's background threads: daemons named {@code name}, or {@code name-1},
 * {@code name-2} … when {@code numbered}. A class rather than a lambda at each executor: a store's
 * first open in a process would spin one lambda class per site.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class DaemonThreads implements ThreadFactory {
    private final String name;
    private final boolean numbered;
    private final AtomicInteger made = new AtomicInteger();

    DaemonThreads(String name, boolean numbered) {
        this.name = name;
        this.numbered = numbered;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, numbered ? name + "-" + made.incrementAndGet() : name);
        t.setDaemon(true);
        return t;
    }
}
