package io.bloomstore.core.table;

import java.util.Arrays;

import io.bloomstore.bloom.CorruptionException;

/**
 * A cursor over one {@link Block}'s entries in internal-key order, forwards and backwards.
 * Seeks binary-search the restart points (whose keys are stored whole) and then scan; a step
 * back re-scans from the restart point before the current entry, as in LevelDB.
 *
 * <p>Every length and offset read from the block is checked, so a malformed entry becomes a
 * {@link CorruptionException} naming the table file and block offset.
 *
 * <p>Thread safety: not thread-safe; one cursor per thread.
 */
final class BlockIterator {
    /** The block read; changed only by {@link #reset}. */
    private Block block;
    private final int[] pos = new int[1];
    /** Offset of the current entry; {@code block.restartsOffset} when not valid. */
    private int current;
    private int nextOffset;
    private int restartIndex;
    /** The current key is {@code keyBuf[0..keyLen)}, decoded in place: a seek compares without allocating. */
    private byte[] keyBuf = new byte[32];
    private int keyLen;
    /** The current key as its own array, made on the first {@link #key()} call for the entry. */
    private byte[] key;
    private int valueOffset;
    private int valueLength;

    BlockIterator(Block block) {
        this.block = block;
        this.current = block.restartsOffset;
    }

    /** Makes this cursor a fresh one over {@code newBlock} (not positioned), reusing its buffers. */
    BlockIterator reset(Block newBlock) {
        block = newBlock;
        current = newBlock.restartsOffset;
        nextOffset = 0;
        restartIndex = 0;
        keyLen = 0;
        key = null;
        valueOffset = 0;
        valueLength = 0;
        return this;
    }

    boolean valid() {
        return current < block.restartsOffset;
    }

    Block block() {
        return block;
    }

    /** Whether positioned at the block's first entry. */
    boolean atFirstEntry() {
        return current == block.start && valid();
    }

    /** The current internal key (a fresh array per entry; do not modify). */
    byte[] key() {
        if (key == null) {
            key = Arrays.copyOf(keyBuf, keyLen);
        }
        return key;
    }

    /** Whether the current entry's user key is {@code userKey}: compared in place, without {@link #key()}'s copy. */
    boolean userKeyEquals(byte[] userKey) {
        return Arrays.equals(keyBuf, 0, keyLen - InternalKeys.TRAILER_BYTES, userKey, 0, userKey.length);
    }

    /** The current entry's trailer ({@code sequence << 8 | type}), read in place. */
    long trailer() {
        return InternalKeys.trailer(keyBuf, 0, keyLen);
    }

    byte[] value() {
        return Arrays.copyOfRange(block.data, valueOffset, valueOffset + valueLength);
    }

    /** The block's array holding the current value at {@link #valueOffset()} (do not modify; valid until the cursor moves). */
    byte[] valueArray() {
        return block.data;
    }

    int valueOffset() {
        return valueOffset;
    }

    int valueLength() {
        return valueLength;
    }

    void seekToFirst() throws CorruptionException {
        seekToRestart(0);
        parseNext();
    }

    void seekToLast() throws CorruptionException {
        seekToRestart(block.restartCount - 1);
        while (parseNext() && nextOffset < block.restartsOffset) {
            // keep stepping until the entry that ends where the restart array begins
        }
    }

    /** Positions at the first entry whose key is ≥ {@code target}; invalid when there is none. */
    void seek(byte[] target) throws CorruptionException {
        int lo = 0;
        int hi = block.restartCount - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            seekToRestart(mid);
            if (!parseNext()) {
                throw corrupt(block.restartPoint(mid), "restart point holds no entry");
            }
            if (compareCurrent(target) < 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        seekToRestart(lo);
        while (parseNext()) {
            if (compareCurrent(target) >= 0) {
                return;
            }
        }
    }

    private int compareCurrent(byte[] target) {
        return InternalKeys.compare(keyBuf, 0, keyLen, target, 0, target.length);
    }

    /** Positions at the last entry whose key is ≤ {@code target}; invalid when there is none. */
    void seekForPrev(byte[] target) throws CorruptionException {
        seek(target);
        if (!valid()) {
            seekToLast();
        } else if (compareCurrent(target) > 0) {
            prev();
        }
    }

    void next() throws CorruptionException {
        parseNext();
    }

    void prev() throws CorruptionException {
        int original = current;
        while (block.restartPoint(restartIndex) >= original) {
            if (restartIndex == 0) {
                current = block.restartsOffset;
                nextOffset = block.restartsOffset;
                return;
            }
            restartIndex--;
        }
        seekToRestart(restartIndex);
        while (parseNext() && nextOffset < original) {
            // scan forward to the entry just before the original one
        }
    }

    private void seekToRestart(int index) {
        restartIndex = index;
        keyLen = 0;
        key = null;
        nextOffset = block.restartPoint(index);
        current = nextOffset;
    }

    /** Decodes the entry at {@code nextOffset}; returns false (and becomes invalid) at the end. */
    private boolean parseNext() throws CorruptionException {
        current = nextOffset;
        int limit = block.restartsOffset;
        if (current >= limit) {
            current = limit;
            nextOffset = limit;
            return false;
        }
        byte[] data = block.data;
        pos[0] = current;
        int shared = Varint.read32(data, pos, limit);
        int nonShared = shared < 0 ? -1 : Varint.read32(data, pos, limit);
        int valueLen = nonShared < 0 ? -1 : Varint.read32(data, pos, limit);
        if (valueLen < 0) {
            throw corrupt(current, "malformed entry header");
        }
        int keyStart = pos[0];
        if (shared > keyLen || (long) keyStart + nonShared + valueLen > limit
                || (long) shared + nonShared < InternalKeys.TRAILER_BYTES) {
            throw corrupt(current, "entry lengths (shared " + shared + ", key " + nonShared + ", value " + valueLen
                    + ") do not fit the block");
        }
        int length = shared + nonShared;
        if (length > keyBuf.length) {
            keyBuf = Arrays.copyOf(keyBuf, Math.max(length, 2 * keyBuf.length));
        }
        System.arraycopy(data, keyStart, keyBuf, shared, nonShared);
        keyLen = length;
        key = null;
        valueOffset = keyStart + nonShared;
        valueLength = valueLen;
        nextOffset = valueOffset + valueLen;
        while (restartIndex + 1 < block.restartCount && block.restartPoint(restartIndex + 1) <= current) {
            restartIndex++;
        }
        return true;
    }

    private CorruptionException corrupt(int offsetInBlock, String what) {
        return new CorruptionException(block.file, block.fileOffset, what + " at byte " + (offsetInBlock - block.start)
                + " of the decoded block");
    }
}
