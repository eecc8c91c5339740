package io.bloomstore.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Gathers a key's versions, newest first, from a merge operand down to what the operands merge
 * with — a value, a timed value still within the TTL, a tombstone or nothing — and merges them:
 * the one rule for gets, iterators, flushes and compactions.
 *
 * <p>A store takes a TTL or a merge operator, not both ({@code StoreOptions}): compaction merges
 * operands into their value eagerly and turns expired values into tombstones, so a merged value's
 * life would depend on when compaction ran. A timed value below operands (written while a TTL was
 * set, merged into after it was dropped) counts while it is within the TTL at {@code now}.
 *
 * <p>Thread safety: not thread-safe; one per key.
 */
public final class MergeAccumulator {
    private final EntryRules rules;
    private final byte[] key;
    private final long now;
    /** The operands' bytes, newest first. */
    private final List<byte[]> operands = new ArrayList<>();
    private boolean ended;
    private byte[] existing;

    /** For the operands of {@code key}, judging a timed value's expiry at {@code now}. */
    public MergeAccumulator(EntryRules rules, byte[] key, long now) {
        this.rules = rules;
        this.key = key;
        this.now = now;
    }

    /** Whether a value or tombstone ended the versions that count. */
    public boolean ended() {
        return ended;
    }

    /** Adds the next older version of the key, {@code v[off, off + len)}; ignored once {@link #ended()}. */
    public void add(ValueType type, byte[] v, int off, int len) {
        if (ended) {
            return;
        }
        if (type.isMerge()) {
            operands.add(Arrays.copyOfRange(v, off, off + len));
            return;
        }
        ended = true;
        if (type == ValueType.VALUE) {
            existing = Arrays.copyOfRange(v, off, off + len);
        } else if (type == ValueType.TIMED_VALUE && !rules.expired(v, off, len, now)) {
            existing = EntryRules.payload(v, off, len);
        }
    }

    /** The operands' bytes, oldest first. */
    public List<byte[]> oldestFirst() {
        List<byte[]> out = new ArrayList<>(operands);
        Collections.reverse(out);
        return out;
    }

    /**
     * The merged value.
     *
     * @throws IllegalStateException when the store has no merge operator
     * @throws IllegalArgumentException when the operator refuses the operands
     */
    public byte[] merge() {
        return rules.fullMerge(key, existing, oldestFirst());
    }
}
