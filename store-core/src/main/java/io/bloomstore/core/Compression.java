package io.bloomstore.core;

/**
 * How a table's data blocks are compressed ({@link StoreOptions.Builder#compression}). The
 * {@link #code()} is the block trailer's type byte on disk (docs/format/sstable.md): never
 * renumber.
 *
 * <p>Thread safety: immutable.
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
}
