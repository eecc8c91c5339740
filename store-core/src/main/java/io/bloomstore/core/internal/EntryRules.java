package io.bloomstore.core.internal;

import io.bloomstore.core.CompactionFilter;
import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.MergeOperatorMissingException;
import io.bloomstore.core.StoreOptions;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;

/**
 * A store's rules for what its entries mean beyond put and delete: the merge operator that
 * combines {@link ValueType#MERGE} operands, the TTL after which a {@link ValueType#TIMED_VALUE}
 * reads as absent, and the compaction filter. One per open store, shared by its read path, its
 * write path and its compactions.
 *
 * <p>A timed value is the value's bytes followed by its write time, milliseconds since the epoch
 * as a big-endian fixed64 ({@code docs/format/sstable.md}).
 *
 * <p>Thread safety: immutable; the operator, filter and clock are the user's (documented as
 * thread-safe).
 */
public final class EntryRules {
    /** Bytes a timed value adds to the value: its write time. */
    public static final int STAMP_BYTES = 8;

    private final MergeOperator merge;
    private final CompactionFilter filter;
    private final long ttlMillis;
    private final Clock clock;

    private EntryRules(MergeOperator merge, CompactionFilter filter, long ttlMillis, Clock clock) {
        this.merge = merge;
        this.filter = filter;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    public static EntryRules of(StoreOptions options) {
        return new EntryRules(options.mergeOperator(), options.compactionFilter(),
                options.ttl() == null ? 0 : Math.max(1, options.ttl().toMillis()), options.clock());
    }

    /** Whether compaction has anything to do beyond dropping shadowed versions: merges, a TTL or a filter. */
    public boolean rewritesValues() {
        return merge != null || filter != null || ttlMillis > 0;
    }

    /** The TTL in milliseconds, 0 for none. */
    public long ttlMillis() {
        return ttlMillis;
    }

    /** Whether writes carry their write time (a TTL is set). */
    public boolean timed() {
        return ttlMillis > 0;
    }

    public MergeOperator mergeOperator() {
        return merge;
    }

    public CompactionFilter compactionFilter() {
        return filter;
    }

    /** Now, by the store's clock, in milliseconds since the epoch. */
    public long now() {
        return clock.millis();
    }

    /**
     * Whether the timed value {@code v[off, off + len)} has outlived the TTL at {@code now}; never
     * without a TTL (a value written while one was set, read by a store opened without it).
     */
    public boolean expired(byte[] v, int off, int len, long now) {
        return ttlMillis > 0 && now - writeTime(v, off, len) >= ttlMillis;
    }

    /** The value a read returns for the timed value {@code v}, or null once it has expired. */
    public byte[] readTimed(byte[] v) {
        if (expired(v, 0, v.length, now())) {
            return null;
        }
        return payload(v, 0, v.length);
    }

    /** The value bytes of the timed value {@code v[off, off + len)}, without its write time. */
    public static byte[] payload(byte[] v, int off, int len) {
        checkTimed(len);
        return Arrays.copyOfRange(v, off, off + len - STAMP_BYTES);
    }

    /** The write time of the timed value {@code v[off, off + len)}. */
    public static long writeTime(byte[] v, int off, int len) {
        checkTimed(len);
        long t = 0;
        for (int i = off + len - STAMP_BYTES; i < off + len; i++) {
            t = (t << 8) | (v[i] & 0xFF);
        }
        return t;
    }

    /** {@code value} followed by {@code millis}: a timed value. */
    public static byte[] stamp(byte[] value, long millis) {
        return stamp(value, 0, value.length, millis);
    }

    /** {@code value[off, off + len)} followed by {@code millis}: a timed value. */
    public static byte[] stamp(byte[] value, int off, int len, long millis) {
        byte[] out = Arrays.copyOfRange(value, off, off + len + STAMP_BYTES);
        for (int i = 0; i < STAMP_BYTES; i++) {
            out[len + i] = (byte) (millis >>> (56 - 8 * i));
        }
        return out;
    }

    private static void checkTimed(int len) {
        if (len < STAMP_BYTES) {
            throw new IllegalStateException("a timed value of " + len + " bytes holds no write time");
        }
    }

    /**
     * The key's value from {@code operands} (oldest first) over {@code existing} (null for none).
     *
     * @throws IllegalStateException when the store has no merge operator
     * @throws IllegalArgumentException when the operator refuses the operands
     */
    public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
        if (merge == null) {
            throw noOperator();
        }
        byte[] out = merge.fullMerge(key, existing, operands);
        if (out == null) {
            throw new IllegalStateException("merge operator " + merge.name() + " returned null for a key of "
                    + key.length + " bytes");
        }
        return out;
    }

    /** The error of a store asked to merge without an operator. */
    public static IllegalStateException noOperator() {
        return new MergeOperatorMissingException("the key has merge operands but the store has no merge operator: open it with "
                + "StoreOptions.builder().mergeOperator(...), the operator it was written with");
    }
}
