package io.bloomstore.core.rangedel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * A set of {@link RangeTombstone}s cut into fragments, as RocksDB's FragmentedRangeTombstoneList:
 * disjoint, sorted key ranges [start, end), each with the sequence numbers of every tombstone that
 * covers it whole (newest first). Overlapping tombstones [a, c)@5 and [b, d)@7 become [a, b){5},
 * [b, c){7, 5}, [c, d){7}. A point question — is the version of key k at sequence q deleted for a
 * reader at s? — is one binary search over the fragments and a look at one short array: yes when
 * the fragment holding k has a sequence T with q &lt; T ≤ s.
 *
 * <p>The store keeps one such set per read view: the MANIFEST's tombstones and those of the
 * memtables not yet flushed ({@code docs/architecture.md}, "Range deletion"). {@link #EMPTY} is
 * shared, so a store without range deletions pays one {@link #isEmpty()} per read.
 *
 * <p>Thread safety: immutable.
 */
public final class RangeTombstones {
    public static final RangeTombstones EMPTY = new RangeTombstones(List.of(), new byte[0][], new byte[0][],
            new long[0][]);

    private static final Comparator<byte[]> UNSIGNED = new Unsigned();
    private static final Comparator<RangeTombstone> BY_START = new ByStart();

    /** Tombstones by start key (a class, not a lambda). */
    private static final class ByStart implements Comparator<RangeTombstone> {
        @Override
        public int compare(RangeTombstone a, RangeTombstone b) {
            return Arrays.compareUnsigned(a.start(), b.start());
        }
    }

    /** Unsigned byte order (a class, not a method reference: no lambda on a one-shot command's path). */
    private static final class Unsigned implements Comparator<byte[]> {
        @Override
        public int compare(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }
    }

    private final List<RangeTombstone> tombstones;
    private final byte[][] starts;
    private final byte[][] ends;
    /** Per fragment, the covering tombstones' sequence numbers, descending. */
    private final long[][] sequences;

    private RangeTombstones(List<RangeTombstone> tombstones, byte[][] starts, byte[][] ends, long[][] sequences) {
        this.tombstones = tombstones;
        this.starts = starts;
        this.ends = ends;
        this.sequences = sequences;
    }

    /** The fragmented set of {@code tombstones} ({@link #EMPTY} when there are none). */
    public static RangeTombstones of(Collection<RangeTombstone> tombstones) {
        if (tombstones.isEmpty()) {
            return EMPTY;
        }
        // A flush logged but not yet installed may show a tombstone in the version and in its memtable at once.
        java.util.Map<Long, RangeTombstone> bySequence = new java.util.LinkedHashMap<>();
        for (RangeTombstone t : tombstones) {
            bySequence.putIfAbsent(t.sequence(), t);
        }
        List<RangeTombstone> all = List.copyOf(bySequence.values());
        TreeSet<byte[]> bounds = new TreeSet<>(UNSIGNED);
        for (RangeTombstone t : all) {
            bounds.add(t.start());
            bounds.add(t.end());
        }
        byte[][] points = bounds.toArray(new byte[0][]);
        // A sweep over the bounds in order: the tombstones by start, and those covering the
        // current fragment (they start at or before it and end after it).
        RangeTombstone[] byStart = all.toArray(new RangeTombstone[0]);
        Arrays.sort(byStart, BY_START);
        List<RangeTombstone> active = new ArrayList<>();
        int next = 0;
        List<byte[]> s = new ArrayList<>();
        List<byte[]> e = new ArrayList<>();
        List<long[]> q = new ArrayList<>();
        long[] covering = new long[all.size()];
        for (int i = 0; i + 1 < points.length; i++) {
            while (next < byStart.length && Arrays.compareUnsigned(byStart[next].start(), points[i]) <= 0) {
                active.add(byStart[next++]);
            }
            int n = 0;
            for (int a = active.size() - 1; a >= 0; a--) {
                RangeTombstone t = active.get(a);
                if (Arrays.compareUnsigned(t.end(), points[i]) <= 0) {
                    active.remove(a);
                } else {
                    covering[n++] = t.sequence();
                }
            }
            if (n == 0) {
                continue;
            }
            long[] seqs = Arrays.copyOf(covering, n);
            Arrays.sort(seqs);
            reverse(seqs);
            s.add(points[i]);
            e.add(points[i + 1]);
            q.add(seqs);
        }
        return new RangeTombstones(all, s.toArray(new byte[0][]), e.toArray(new byte[0][]), q.toArray(new long[0][]));
    }

    /** This set with {@code more} added. */
    public RangeTombstones plus(Collection<RangeTombstone> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<RangeTombstone> all = new ArrayList<>(tombstones);
        all.addAll(more);
        return of(all);
    }

    private static void reverse(long[] a) {
        for (int i = 0, j = a.length - 1; i < j; i++, j--) {
            long t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    public boolean isEmpty() {
        return tombstones.isEmpty();
    }

    /** The number of tombstones (not fragments). */
    public int size() {
        return tombstones.size();
    }

    /** The tombstones as written, in the order given. */
    public List<RangeTombstone> tombstones() {
        return tombstones;
    }

    public int fragments() {
        return starts.length;
    }

    public byte[] fragmentStart(int i) {
        return starts[i];
    }

    public byte[] fragmentEnd(int i) {
        return ends[i];
    }

    /** The index of the fragment holding {@code key}, or -1 when no tombstone covers it. */
    public int fragmentIndex(byte[] key) {
        int lo = 0;
        int hi = starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(starts[mid], key) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && Arrays.compareUnsigned(key, ends[found]) < 0 ? found : -1;
    }

    /** The newest sequence number of fragment {@code i}'s tombstones that a reader at {@code snapshot} sees, or 0. */
    public long newestVisible(int i, long snapshot) {
        for (long t : sequences[i]) {
            if (t <= snapshot) {
                return t;
            }
        }
        return 0;
    }

    /** The oldest sequence number of fragment {@code i}'s tombstones above {@code sequence}, or {@link Long#MAX_VALUE}. */
    public long oldestNewerThan(int i, long sequence) {
        long[] seqs = sequences[i];
        long best = Long.MAX_VALUE;
        for (long t : seqs) {
            if (t > sequence) {
                best = t;
            } else {
                break;
            }
        }
        return best;
    }

    /** Whether the version of {@code key} at {@code sequence} is deleted by a tombstone a reader at {@code snapshot} sees. */
    public boolean covers(byte[] key, long sequence, long snapshot) {
        int i = fragmentIndex(key);
        return i >= 0 && newestVisible(i, snapshot) > sequence;
    }

    /**
     * Whether every key of [{@code smallest}, {@code largest}] (both inclusive) lies in fragments
     * that each hold a tombstone newer than {@code newestSequence}: a table of that key range whose
     * entries are all at most {@code newestSequence} is deleted whole for every reader from the
     * newest such tombstone on. Returns the oldest sequence number that is enough in every
     * fragment (the reader from which on the whole range reads empty), or 0 when the range is not
     * covered.
     */
    public long coversWhole(byte[] smallest, byte[] largest, long newestSequence) {
        int i = fragmentIndex(smallest);
        if (i < 0) {
            return 0;
        }
        long needed = 0;
        while (true) {
            long t = oldestNewerThan(i, newestSequence);
            if (t == Long.MAX_VALUE) {
                return 0;
            }
            needed = Math.max(needed, t);
            if (Arrays.compareUnsigned(largest, ends[i]) < 0) {
                return needed;
            }
            if (i + 1 >= starts.length || !Arrays.equals(starts[i + 1], ends[i])) {
                return 0;
            }
            i++;
        }
    }

    /** The tombstones whose range meets [{@code smallest}, {@code largest}]. */
    public List<RangeTombstone> overlapping(byte[] smallest, byte[] largest) {
        List<RangeTombstone> out = new ArrayList<>();
        for (RangeTombstone t : tombstones) {
            if (t.overlaps(smallest, largest)) {
                out.add(t);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "RangeTombstones" + tombstones;
    }
}
