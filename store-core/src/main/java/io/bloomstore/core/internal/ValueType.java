package io.bloomstore.core.internal;

/**
 * What an internal entry records for its user key. The {@link #code()} is written to disk
 * (WAL records, SSTable keys): never renumber.
 */
public enum ValueType {
    /** A tombstone: the key was deleted at this sequence number. */
    DELETION(0),
    /** A value: the key was set at this sequence number. */
    VALUE(1);

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
            default:
                throw new IllegalArgumentException("unknown value type " + code);
        }
    }
}
