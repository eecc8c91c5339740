package io.bloomstore.core.table;

/**
 * How a block's contents are compressed. The {@link #code()} is the block trailer's type
 * byte on disk (docs/format/sstable.md): never renumber.
 */
public enum Compression {
    /** Stored as is. */
    NONE(0),
    /** An LZ4 block (lz4-java) preceded by the uncompressed length. */
    LZ4(1);

    private final int code;

    Compression(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The compression of a trailer's type byte, or null when the byte names none. */
    static Compression byCode(int code) {
        for (Compression c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return null;
    }
}
