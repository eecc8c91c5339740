package io.bloomstore.core.compaction;

import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.util.Arrays;

/**
 * Decides, entry by entry in internal order (user key ascending, sequence descending), which
 * versions a compaction keeps. A reader at sequence s sees, per key, the newest version with a
 * sequence ≤ s. The readers still possible are the live snapshots and every future read (at a
 * sequence above all entries). So a version with sequence q, whose next newer kept version has
 * sequence p (∞ for the newest), is needed only if some live snapshot t has q ≤ t &lt; p; all
 * other versions are shadowed for everyone and dropped.
 *
 * <p>A tombstone that is kept (someone may see it) may still go when the output is the bottom
 * level for its key range and no snapshot is older than it: then every reader that could see the
 * tombstone would see nothing below it either, so dropping it changes no answer. The versions
 * older than such a tombstone are themselves shadowed (no snapshot below the tombstone) and
 * dropped with it.
 *
 * <p>A merge operand hides nothing: whoever reads it needs the versions below it too, down to a
 * value or tombstone. So a kept operand leaves the next newer kept version where it was.
 *
 * <p>Range tombstones shorten a version's life the same way a newer version does: a reader t sees
 * the version at q unless a tombstone T over its key has q &lt; T ≤ t, so with T the oldest such
 * tombstone above q, the version is needed only if some reader t has q ≤ t &lt; min(p, T). Only
 * tombstones already in the MANIFEST (or written by the same edit) may be used: a compaction that
 * dropped data under a tombstone still only in an unsynced WAL could lose the tombstone in a crash
 * and keep the deletion.
 *
 * <p>Thread safety: not thread-safe; one per compaction.
 */
public final class ShadowedVersions {
    private final long[] snapshots;
    private final boolean bottommost;
    private final RangeTombstones tombstones;
    private byte[] currentKey;
    /** The fragment of {@link #tombstones} holding {@link #currentKey}, or -1. */
    private int fragment = -1;
    private long newerKept;
    private long dropped;

    /**
     * @param snapshots  sequences of the live snapshots (any order, duplicates allowed)
     * @param bottommost whether no deeper level holds tables in the compaction's key range
     */
    public ShadowedVersions(long[] snapshots, boolean bottommost) {
        this(snapshots, bottommost, RangeTombstones.EMPTY);
    }

    /**
     * As {@link #ShadowedVersions(long[], boolean)}, dropping too the versions {@code tombstones}
     * delete for every reader.
     */
    public ShadowedVersions(long[] snapshots, boolean bottommost, RangeTombstones tombstones) {
        this.snapshots = snapshots.clone();
        Arrays.sort(this.snapshots);
        this.bottommost = bottommost;
        this.tombstones = tombstones;
    }

    /** Whether to keep the entry; call for every entry, in internal order. */
    public boolean keep(byte[] userKey, long sequence, ValueType type) {
        return keep(userKey, sequence, type, true);
    }

    /**
     * {@link #keep(byte[], long, ValueType)} for a key array nobody changes afterwards (a flush's
     * copies out of the memtable): kept as it is, not copied.
     */
    public boolean keepUnchangingKey(byte[] userKey, long sequence, ValueType type) {
        return keep(userKey, sequence, type, false);
    }

    private boolean keep(byte[] userKey, long sequence, ValueType type, boolean copy) {
        if (currentKey == null || !Arrays.equals(currentKey, userKey)) {
            currentKey = copy ? userKey.clone() : userKey;
            newerKept = Long.MAX_VALUE;
            fragment = tombstones.isEmpty() ? -1 : tombstones.fragmentIndex(userKey);
        }
        long until = newerKept;
        if (fragment >= 0) {
            until = Math.min(until, tombstones.oldestNewerThan(fragment, sequence));
        }
        if (!neededBySomeReader(sequence, until)) {
            dropped++;
            return false;
        }
        if (type.isMerge()) {
            return true;
        }
        newerKept = sequence;
        if (type == ValueType.DELETION && bottommost && !hasSnapshotBelow(sequence)) {
            dropped++;
            return false;
        }
        return true;
    }

    /** Whether the output is the bottom level for the compaction's key range. */
    public boolean bottommost() {
        return bottommost;
    }

    /**
     * Whether no reader can tell versions {@code newer} and {@code older} of a key apart: no
     * snapshot t with older ≤ t &lt; newer (one sees the older but not the newer).
     */
    public boolean sameStripe(long newer, long older) {
        int i = Arrays.binarySearch(snapshots, older);
        int first = i >= 0 ? firstIndexOf(i) : -i - 1;
        return first >= snapshots.length || snapshots[first] >= newer;
    }

    /** Whether some live snapshot sees an entry at {@code sequence} (one at or above it). */
    public boolean seenBySnapshot(long sequence) {
        return snapshots.length > 0 && snapshots[snapshots.length - 1] >= sequence;
    }

    /**
     * Whether a range tombstone over {@code key} deletes its version at {@code older} for every
     * reader of the one at {@code newer}: a tombstone T with older &lt; T ≤ newer (a merge run stops
     * there, as at a tombstone).
     */
    public boolean rangeDeletedBetween(byte[] key, long older, long newer) {
        if (tombstones.isEmpty()) {
            return false;
        }
        int i = tombstones.fragmentIndex(key);
        return i >= 0 && tombstones.oldestNewerThan(i, older) <= newer;
    }

    /** Entries dropped so far. */
    public long dropped() {
        return dropped;
    }

    /** Some reader t (a snapshot, or a future read at ∞) with q ≤ t &lt; p. */
    private boolean neededBySomeReader(long q, long p) {
        if (p == Long.MAX_VALUE) {
            return true;
        }
        int i = Arrays.binarySearch(snapshots, q);
        int first = i >= 0 ? firstIndexOf(i) : -i - 1;
        return first < snapshots.length && snapshots[first] < p;
    }

    private int firstIndexOf(int i) {
        while (i > 0 && snapshots[i - 1] == snapshots[i]) {
            i--;
        }
        return i;
    }

    private boolean hasSnapshotBelow(long sequence) {
        return snapshots.length > 0 && snapshots[0] < sequence;
    }
}
