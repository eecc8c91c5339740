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
     * A range deletion: every key in [key, value) older than this sequence number is deleted. Only
     * in WAL records and memtables' tombstone lists, never in a table ({@code docs/format/wal.md}).
     */
    RANGE_DELETION(3);

    private final int code;

    ValueType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static ValueType byCode(int code) {
        switch (code) {
            case 0:
                return DELETION;
            case 1:
                return VALUE;
            case 3:
                return RANGE_DELETION;
            default:
                throw new IllegalArgumentException("unknown value type " + code);
        }
    }
}
