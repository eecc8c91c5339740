package io.bloomstore.core.db;

import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import io.bloomstore.core.stats.ThreadTally;

/**
 * Each reading thread's reference on the current {@link ReadView}, kept between gets so that a
 * get takes no shared reference count (RocksDB's thread-local super-version). Retaining and
 * releasing the view's {@link VersionRef} on every get made two threads of point lookups slower
 * than one: both wrote the same count. Here a get swaps a marker into its own thread's slot and
 * back — no other thread writes there — and takes a shared reference only when the view changed.
 *
 * <p>When a new version is installed, {@link #scrape()} empties every slot and releases the
 * references they held; a slot whose thread is reading at that moment is marked, and that
 * thread releases its reference itself when done. So a thread that stops reading pins old tables
 * only until the next version change, and {@link #scrape()} at close lets every table go.
 *
 * <p>Thread safety: safe for concurrent use; {@link #acquire(Slot)} and {@link #release(Slot, ReadView)}
 * pair up on one thread, without nesting.
 */
final class ViewCache {
    /** The slot's thread is reading with the view it took out. */
    private static final Object IN_USE = new Object();
    /** The slot holds no reference. */
    private static final Object EMPTY = new Object();

    private final DbState db;
    private final Set<Slot> slots = ConcurrentHashMap.newKeySet();
    private final ThreadLocal<Slot> local = new ThreadLocal<>() {
        @Override
        protected Slot initialValue() {
            return newSlot();
        }
    };

    static final class Slot {
        final AtomicReference<Object> state = new AtomicReference<>(EMPTY);
        final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
        /** The thread's row of the lookup counters (created with the slot, on the thread). */
        final ThreadTally tally;

        Slot(ThreadTally tally) {
            this.tally = tally;
        }
    }

    ViewCache(DbState db) {
        this.db = db;
    }

    private Slot newSlot() {
        Slot s = new Slot(db.counters.newTally());
        slots.add(s);
        return s;
    }

    /** The calling thread's slot, for {@link #acquire(Slot)} and {@link #release(Slot, ReadView)}. */
    Slot slot() {
        return local.get();
    }

    /** The current view, its tables held until {@link #release}; {@code s} is the calling thread's {@link #slot()}. */
    ReadView acquire(Slot s) {
        Object held = s.state.getAndSet(IN_USE);
        if (held == IN_USE) {
            throw new IllegalStateException("nested read on one thread");
        }
        ReadView current = db.view;
        if (held == current) {
            return current;
        }
        try {
            if (held instanceof ReadView old) {
                old.tables().release();
            }
            return db.retainView();
        } catch (RuntimeException e) {
            s.state.set(EMPTY);
            throw e;
        }
    }

    /** Ends a read begun by {@link #acquire(Slot)} on this thread: the slot keeps the reference for the next. */
    void release(Slot s, ReadView v) {
        if (db.root.closed) {
            // Closing: keep nothing for later (the close's own scrape may have run already).
            s.state.set(EMPTY);
            v.tables().release();
        } else if (!s.state.compareAndSet(IN_USE, v)) {
            // Scraped meanwhile: the reference is this thread's to drop.
            v.tables().release();
        }
    }

    /**
     * Empties every slot, releasing the references idle slots held; a slot in use is emptied and
     * its thread releases on {@link #release}. Called after the current view's version changed,
     * and at close. Forgets the slots of threads that have ended.
     */
    void scrape() {
        for (Slot s : slots) {
            Object held = s.state.getAndSet(EMPTY);
            if (held instanceof ReadView v) {
                v.tables().release();
            }
            Thread t = s.owner.get();
            if (t == null || !t.isAlive()) {
                slots.remove(s);
            }
        }
    }
}
