package io.bloomstore.core.internal;

/**
 * What an internal entry records for its user key. The {@link #code()} is written to disk
 * (WAL records, SSTable keys): never renumber.
 */
public enum ValueType {
    /** A tombstone: the key was deleted at this sequence number. */
    DELETION(0),
    /** A value: the key was set at this sequence number. */
    VALUE(1),
    /**
     * A merge operand ({@code Store.merge}): combined with the key's older versions by the store's
     * {@code MergeOperator} when read or compacted. Does not hide older versions.
     */
    MERGE(2),
    /**
     * A range deletion: every key in [key, value) older than this sequence number is deleted. Only
     * in WAL records and memtables' tombstone lists, never in a table ({@code docs/format/wal.md}).
     */
    RANGE_DELETION(3),
    /**
     * A value with its write time: the value's bytes followed by the commit time in milliseconds
     * since the epoch (fixed64, big-endian), written by a store with a TTL. Read as a value until
     * the TTL has passed, then as absent.
     */
    TIMED_VALUE(4);

    private final int code;

    ValueType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Whether an entry of this type is a merge operand: it hides no older version. */
    public boolean isMerge() {
        return this == MERGE;
    }

    /** Whether an entry of this type holds a value a read returns (a plain or a timed value). */
    public boolean isValue() {
        return this == VALUE || this == TIMED_VALUE;
    }

    public static ValueType byCode(int code) {
        switch (code) {
            case 0:
                return DELETION;
            case 1:
                return VALUE;
            case 2:
                return MERGE;
            case 3:
                return RANGE_DELETION;
            case 4:
                return TIMED_VALUE;
            default:
                throw new IllegalArgumentException("unknown value type " + code);
        }
    }
}
