package io.bloomstore.core.stats;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The {@link ThreadTally} rows of one store's threads, and the sums of their slots. A row whose
 * thread has ended is folded into a running total and dropped when a sum next looks (or a
 * registration, once the rows have doubled since the last fold), so a service that starts a
 * thread per request keeps about one row per live reader, and no count is lost or counted twice.
 *
 * <p>Thread safety: safe for concurrent use; registering and summing take this registry's lock,
 * counting ({@link ThreadTally#add}) takes nothing.
 */
public final class TallyRegistry {
    private final int slots;
    private final long[] ended;
    private final List<ThreadTally> rows = new ArrayList<>();
    /** Rows held after the last fold: a registration folds again only once they have doubled. */
    private int rowsAfterFold;

    public TallyRegistry(int slots) {
        this.slots = slots;
        this.ended = new long[slots];
    }

    /** A new row owned by the calling thread. */
    public synchronized ThreadTally register() {
        // Folding walks every row: done at each registration, threads started per request (or
        // virtual threads) would make registering quadratic; at each doubling it stays amortised O(1).
        if (rows.size() >= 2 * rowsAfterFold + 16) {
            foldEnded();
        }
        ThreadTally t = new ThreadTally(slots, Thread.currentThread());
        rows.add(t);
        return t;
    }

    /** Every thread's count in {@code slot}, ended threads' included. */
    public synchronized long sum(int slot) {
        foldEnded();
        long s = ended[slot];
        for (ThreadTally t : rows) {
            s += t.get(slot);
        }
        return s;
    }

    /** Rows still held (live threads', until a sum or registration notices one ended). */
    synchronized int rows() {
        return rows.size();
    }

    private void foldEnded() {
        for (Iterator<ThreadTally> it = rows.iterator(); it.hasNext(); ) {
            ThreadTally t = it.next();
            if (t.ownerEnded()) {
                for (int s = 0; s < slots; s++) {
                    ended[s] += t.get(s);
                }
                it.remove();
            }
        }
        rowsAfterFold = rows.size();
    }
}
