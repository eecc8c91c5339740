package io.bloomstore.core.db;

import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.MergeAccumulator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.io.IOException;
import java.util.Arrays;

/**
 * A point lookup of a key whose newest version is a merge operand: gathers the key's versions,
 * newest first, from the sources in order, until a value or tombstone ends them, then merges.
 *
 * <p>Thread safety: not thread-safe; one per lookup.
 */
final class MergeLookup {
    private final MergeAccumulator versions;
    private final byte[] key;
    /** The newest sequence still to look at: the snapshot, then just below the last version added. */
    private long below;
    private boolean done;
    private final long snapshot;
    /** The read's range tombstones: a version under one ends the operands, as a tombstone would. */
    private final RangeTombstones rangeDeletions;

    MergeLookup(EntryRules rules, byte[] key, long snapshot, RangeTombstones rangeDeletions) {
        this.versions = new MergeAccumulator(rules, key, rules.timed() ? rules.now() : 0);
        this.key = key;
        this.below = snapshot;
        this.snapshot = snapshot;
        this.rangeDeletions = rangeDeletions;
    }

    boolean done() {
        return done;
    }

    /** The sequence the next version must be at or below. */
    long below() {
        return below;
    }

    /** The next older version of the key. */
    void add(ValueType type, long sequence, byte[] value) {
        if (!rangeDeletions.isEmpty() && rangeDeletions.covers(key, sequence, snapshot)) {
            // Deleted by a range tombstone the reader sees, and so is everything older.
            done = true;
            return;
        }
        versions.add(type, value, 0, value.length);
        below = sequence - 1;
        done = versions.ended() || below < 0;
    }

    /** Adds a memtable's versions of the key at or below {@link #below()}, walking them in order. */
    void collect(MemTable mem) throws IOException {
        if (done) {
            return;
        }
        try (InternalIterator it = mem.iterator()) {
            it.seek(key);
            while (!done && it.valid() && Arrays.equals(it.key(), key)) {
                if (it.sequence() <= below) {
                    int at = it.valueOffset();
                    add(it.type(), it.sequence(), Arrays.copyOfRange(it.valueArray(), at, at + it.valueLength()));
                }
                it.next();
            }
        }
    }

    /** The merged value. */
    byte[] result() {
        return versions.merge();
    }
}
