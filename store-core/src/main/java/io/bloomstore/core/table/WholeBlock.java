package io.bloomstore.core.table;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.internal.ValueType;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A compaction input's data block as it is stored (payload, type byte, CRC32C) together with its
 * decoded entries: what a compaction needs to copy the block into its output unchanged when no
 * other input has a key inside it and every entry in it is kept. The stored bytes then go to the
 * output file as they are — no decompression for the output, no recompression — while the entries
 * still feed the output's filter, key range and counts ({@link TableBuilder#addWholeBlock}).
 *
 * <p>Valid only until its table iterator moves to another block.
 *
 * <p>Thread safety: not thread-safe; owned by one table iterator.
 */
public final class WholeBlock {
    private final TableReader table;
    private byte[] stored = new byte[0];
    private int storedLength;
    private boolean present;
    private Block block;
    private byte[] lastInternalKey;

    WholeBlock(TableReader table) {
        this.table = table;
    }

    /** Copies a block's stored bytes ({@code stored}'s remaining bytes; its position is left alone). */
    void capture(ByteBuffer storedBuffer) {
        int n = storedBuffer.remaining();
        if (stored.length < n) {
            stored = new byte[Math.max(n, 2 * stored.length)];
        }
        storedBuffer.duplicate().get(stored, 0, n);
        storedLength = n;
        present = true;
    }

    /** The block came from the cache, decoded: its stored bytes are not at hand. */
    void clear() {
        present = false;
        block = null;
        lastInternalKey = null;
    }

    boolean present() {
        return present;
    }

    void position(Block decoded, byte[] lastKey) {
        this.block = decoded;
        this.lastInternalKey = lastKey;
    }

    /** The properties of the table the block comes from (its compression, block size, restart interval). */
    TableProperties source() {
        return table.properties();
    }

    byte[] storedBytes() {
        return stored;
    }

    /** Stored bytes, trailer included. */
    int storedLength() {
        return storedLength;
    }

    byte[] lastInternalKey() {
        return lastInternalKey;
    }

    /** The user key of the block's last entry (a new array). */
    public byte[] lastUserKey() {
        return InternalKeys.userKey(lastInternalKey);
    }

    /** Whether {@code userKey} sorts after the user key of the block's last entry (no copy made). */
    public boolean endsBefore(byte[] userKey) {
        return Arrays.compareUnsigned(lastInternalKey, 0, lastInternalKey.length - InternalKeys.TRAILER_BYTES,
                userKey, 0, userKey.length) < 0;
    }

    /** A cursor at the block's first entry. */
    public Cursor cursor() throws CorruptionException {
        return new Cursor();
    }

    /** The block's entries in order. */
    public final class Cursor {
        private final BlockIterator it;
        private long trailer;

        private Cursor() throws CorruptionException {
            it = block.iterator();
            it.seekToFirst();
            if (it.valid()) {
                trailer = InternalKeys.trailer(it.key());
            }
        }

        public boolean valid() {
            return it.valid();
        }

        public void next() throws CorruptionException {
            it.next();
            if (it.valid()) {
                trailer = InternalKeys.trailer(it.key());
            }
        }

        /** The entry's internal key (do not modify). */
        byte[] internalKey() {
            return it.key();
        }

        public byte[] userKey() {
            return InternalKeys.userKey(it.key());
        }

        public long sequence() {
            return trailer >>> 8;
        }

        public ValueType type() throws CorruptionException {
            return table.typeOf(trailer, block.fileOffset);
        }

        /** The value (a new array); empty for a deletion. */
        public byte[] value() {
            return it.value();
        }

        /** The block's array holding the value at {@link #valueOffset()} (do not modify; valid until the cursor moves). */
        public byte[] valueArray() {
            return it.valueArray();
        }

        public int valueOffset() {
            return it.valueOffset();
        }

        public int valueLength() {
            return it.valueLength();
        }
    }
}
