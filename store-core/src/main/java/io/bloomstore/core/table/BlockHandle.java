package io.bloomstore.core.table;

import java.io.ByteArrayOutputStream;

/**
 * Where a block lives in a table file: {@code offset} of its first byte and {@code size} of its
 * payload, not counting the 5-byte trailer that follows (docs/format/sstable.md). Index entries
 * hold handles as two varints.
 *
 * <p>Thread safety: immutable.
 */
record BlockHandle(long offset, long size) {

    /** Bytes the block occupies on disk, trailer included. */
    long storedSize() {
        return size + BlockCodec.TRAILER_BYTES;
    }

    byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(20);
        Varint.write(out, offset);
        Varint.write(out, size);
        return out.toByteArray();
    }

    /** Decodes an index value; null when it is not exactly two varints. */
    static BlockHandle decode(byte[] b) {
        int[] pos = {0};
        long offset = Varint.read64(b, pos, b.length);
        long size = offset < 0 ? -1 : Varint.read64(b, pos, b.length);
        if (size < 0 || pos[0] != b.length) {
            return null;
        }
        return new BlockHandle(offset, size);
    }
}
