package io.bloomstore.core.db;

import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.memtable.MemTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A point lookup of a key whose newest version is a merge operand: gathers the key's versions,
 * newest first, from the sources in order, until a value or tombstone ends them, then merges.
 *
 * <p>Thread safety: not thread-safe; one per lookup.
 */
final class MergeLookup {
    private final EntryRules rules;
    private final byte[] key;
    /** The newest sequence still to look at: the snapshot, then just below the last version added. */
    private long below;
    private final List<byte[]> operands = new ArrayList<>();
    private boolean done;
    private byte[] existing;

    MergeLookup(EntryRules rules, byte[] key, long snapshot) {
        this.rules = rules;
        this.key = key;
        this.below = snapshot;
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
        if (type == ValueType.MERGE) {
            operands.add(value);
        } else {
            existing = type == ValueType.VALUE ? value
                    : type == ValueType.TIMED_VALUE ? rules.readTimed(value) : null;
            done = true;
        }
        below = sequence - 1;
        done |= below < 0;
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
        List<byte[]> oldestFirst = new ArrayList<>(operands);
        Collections.reverse(oldestFirst);
        return rules.fullMerge(key, existing, oldestFirst);
    }
}
