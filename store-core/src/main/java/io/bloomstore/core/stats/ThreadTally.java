package io.bloomstore.core.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One thread's share of the point-lookup path's counters: a row of plain longs that only its
 * owner thread increments, with no atomic instruction. A miss consults several tables and
 * counts four or five events at each; as {@link java.util.concurrent.atomic.LongAdder}
 * increments (one compare-and-set each) that was a quarter of a miss's time in a profile. The
 * store's {@link Counter}s add every thread's row to their own sum ({@link TallyRegistry}).
 *
 * <p>Thread safety: {@link #add(int)} only on the owner thread; {@link #get(int)} from any thread
 * sees every increment the owner has made up to some recent point (opaque access: no increment
 * is torn or lost, one just made may not be seen yet by another thread).
 */
public final class ThreadTally {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs of padding at each end, so two threads' rows never share a cache line. */
    private static final int PAD = 8;

    private final long[] slots;
    private final WeakReference<Thread> owner;

    ThreadTally(int slots, Thread owner) {
        this.slots = new long[slots + 2 * PAD];
        this.owner = new WeakReference<>(owner);
    }

    /** Counts one event in {@code slot}. REQUIRES: the calling thread is the owner. */
    public void add(int slot) {
        int i = slot + PAD;
        SLOT.setOpaque(slots, i, slots[i] + 1);
    }

    /** The events counted in {@code slot} so far (from any thread). */
    long get(int slot) {
        return (long) SLOT.getOpaque(slots, slot + PAD);
    }

    /**
     * True once the owner has ended: no increment can follow, and (by {@link Thread#isAlive()})
     * every one it made is visible to the caller.
     */
    boolean ownerEnded() {
        Thread t = owner.get();
        return t == null || !t.isAlive();
    }
}
