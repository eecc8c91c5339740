package io.bloomstore.core.compaction;

import io.bloomstore.core.CompactionFilter;
import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.MergeAccumulator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.table.WholeBlock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a compaction does to entries beyond dropping shadowed versions: merges runs of operands,
 * turns expired timed values into tombstones, and applies the compaction filter (RocksDB's
 * {@code MergeHelper} and {@code CompactionFilter} in one place).
 *
 * <ul>
 * <li>A run of merge operands of one key that no snapshot separates is merged with the value or
 * tombstone right below it when that is in the same stripe (the result is a value at the newest
 * operand's sequence); with nothing below it at all and the output the bottom level, merged with
 * nothing; otherwise combined by {@link MergeOperator#partialMerge} into one operand when the
 * operator can, else kept as it is. An operator that refuses the operands leaves them unmerged:
 * the compaction goes on and reads report the error.
 * <li>A timed value past its TTL becomes a tombstone at its sequence number (every reader already
 * reads it as absent).
 * <li>A value no snapshot can see is given to the {@link CompactionFilter}: removed (a tombstone at
 * its sequence number), changed (same sequence number, a timed value keeps its write time) or kept.
 * </ul>
 * Every entry this produces then passes {@link ShadowedVersions#keep} like any other.
 *
 * <p>Thread safety: not thread-safe; one per compaction job.
 */
public final class ValueRewriter {
    /** Receives the entries to keep-check and write, in internal order. */
    public interface Sink {
        void entry(byte[] key, long sequence, ValueType type, byte[] value, int offset, int length) throws IOException;
    }

    private static final byte[] EMPTY = new byte[0];

    private final EntryRules rules;
    private final ShadowedVersions versions;
    private final int level;
    private final long now;
    private final MergeOperator merge;
    private final CompactionFilter filter;
    /** A flush's rewriter: merges operands only (RocksDB's flush merges; TTL and filter wait for compaction). */
    private final boolean mergesOnly;

    ValueRewriter(EntryRules rules, ShadowedVersions versions, int level) {
        this(rules, versions, level, false);
    }

    private ValueRewriter(EntryRules rules, ShadowedVersions versions, int level, boolean mergesOnly) {
        this.rules = rules;
        this.versions = versions;
        this.level = level;
        this.now = rules.now();
        this.merge = rules.mergeOperator();
        this.filter = rules.compactionFilter();
        this.mergesOnly = mergesOnly;
    }

    /**
     * A flush's rewriter, which merges runs of operands (so a hot counter costs level 0 one entry
     * per flush, not one per increment) and leaves the rest to compaction; null when the store has
     * no merge operator.
     */
    public static ValueRewriter forFlush(EntryRules rules, ShadowedVersions versions) {
        return rules.mergeOperator() == null ? null : new ValueRewriter(rules, versions, 0, true);
    }

    /** A memtable's iterator as the merged stream {@link #rewrite} reads. */
    public static CompactionJob.Merger over(InternalIterator it) {
        return new CompactionJob.Merger() {
            @Override
            public boolean valid() {
                return it.valid();
            }

            @Override
            public InternalIterator current() {
                return it;
            }

            @Override
            public void advance() throws IOException {
                it.next();
            }
        };
    }

    /** Whether an entry of {@code type} may be rewritten (else it passes as it is). */
    public boolean rewrites(ValueType type) {
        if (type.isMerge()) {
            return merge != null;
        }
        if (mergesOnly) {
            return false;
        }
        if (type == ValueType.TIMED_VALUE) {
            return rules.timed() || filter != null;
        }
        return type == ValueType.VALUE && filter != null;
    }

    /** Whether any entry of a whole block may be rewritten: then it is not copied whole. */
    boolean rewritesAny(WholeBlock whole) throws IOException {
        for (WholeBlock.Cursor c = whole.cursor(); c.valid(); c.next()) {
            if (rewrites(c.type())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rewrites the entry {@code merged} is on (one {@link #rewrites} accepts) and, for an operand,
     * the versions below it it merges with; hands the results to {@code sink} and leaves
     * {@code merged} past every entry it consumed.
     */
    public void rewrite(CompactionJob.Merger merged, Sink sink) throws IOException {
        InternalIterator e = merged.current();
        byte[] key = e.key();
        if (!e.type().isMerge()) {
            ValueType type = e.type();
            byte[] v = Arrays.copyOfRange(e.valueArray(), e.valueOffset(), e.valueOffset() + e.valueLength());
            long seq = e.sequence();
            merged.advance();
            emitValue(key, seq, type, v, sink);
            return;
        }
        long top = e.sequence();
        MergeAccumulator acc = new MergeAccumulator(rules, key, now);
        // The versions consumed, as they were, for when nothing can be merged.
        List<ValueType> types = new ArrayList<>();
        List<Long> sequences = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        boolean keyEnded = false;
        while (true) {
            if (!merged.valid() || !Arrays.equals(merged.current().key(), key)) {
                keyEnded = true;
                break;
            }
            InternalIterator n = merged.current();
            if (!versions.sameStripe(top, n.sequence())) {
                break;
            }
            if (versions.rangeDeletedBetween(key, n.sequence(), top)) {
                // A range tombstone deletes this version and all older ones for the operands'
                // readers: the run ends as at a tombstone (the versions stay for keep() to drop).
                acc.add(ValueType.DELETION, EMPTY, 0, 0);
                break;
            }
            byte[] v = Arrays.copyOfRange(n.valueArray(), n.valueOffset(), n.valueOffset() + n.valueLength());
            types.add(n.type());
            sequences.add(n.sequence());
            values.add(v);
            acc.add(n.type(), v, 0, v.length);
            merged.advance();
            if (acc.ended()) {
                break;
            }
        }
        if (acc.ended() || (keyEnded && versions.bottommost())) {
            byte[] result = tryFullMerge(acc);
            if (result != null) {
                emitValue(key, top, ValueType.VALUE, result, sink);
                return;
            }
        } else if (types.size() > 1) {
            byte[] partial = tryPartialMerge(key, acc.oldestFirst());
            if (partial != null) {
                sink.entry(key, top, ValueType.MERGE, partial, 0, partial.length);
                return;
            }
        }
        for (int i = 0; i < types.size(); i++) {
            byte[] v = values.get(i);
            sink.entry(key, sequences.get(i), types.get(i), v, 0, v.length);
        }
    }

    private byte[] tryFullMerge(MergeAccumulator acc) {
        try {
            return acc.merge();
        } catch (RuntimeException refused) {
            return null;
        }
    }

    private byte[] tryPartialMerge(byte[] key, List<byte[]> operands) {
        try {
            return merge.partialMerge(key, operands);
        } catch (RuntimeException refused) {
            return null;
        }
    }

    /** A value or timed value through the TTL and the filter. */
    private void emitValue(byte[] key, long seq, ValueType type, byte[] v, Sink sink) throws IOException {
        if (mergesOnly) {
            sink.entry(key, seq, type, v, 0, v.length);
            return;
        }
        if (type == ValueType.TIMED_VALUE && rules.expired(v, 0, v.length, now)) {
            sink.entry(key, seq, ValueType.DELETION, EMPTY, 0, 0);
            return;
        }
        if (filter != null && type.isValue() && !versions.seenBySnapshot(seq)) {
            byte[] payload = type == ValueType.TIMED_VALUE ? EntryRules.payload(v, 0, v.length) : v;
            CompactionFilter.Decision d = filter.filter(level, key, payload);
            if (d == CompactionFilter.Decision.REMOVE) {
                sink.entry(key, seq, ValueType.DELETION, EMPTY, 0, 0);
                return;
            }
            byte[] changed = d == null ? null : d.newValue();
            if (changed != null) {
                v = type == ValueType.TIMED_VALUE
                        ? EntryRules.stamp(changed, EntryRules.writeTime(v, 0, v.length)) : changed;
            }
        }
        sink.entry(key, seq, type, v, 0, v.length);
    }
}
