package io.bloomstore.core.table;

import java.util.Arrays;

/**
 * Builds one block: entries with keys prefix-compressed against the previous key, and every
 * {@code restartInterval}-th key stored whole at a restart point so readers can binary-search
 * and step backwards. Layout in docs/format/sstable.md ("Block contents").
 *
 * <p>REQUIRES: keys are added in strictly increasing internal order; the caller checks that.
 *
 * <p>Thread safety: not thread-safe.
 */
final class BlockBuilder {
    private final int restartInterval;
    /** The block so far, {@code size} bytes (a plain array: a stream's synchronized writes cost a compaction dearly). */
    private byte[] buf = new byte[4096 + 512];
    private int size;
    private int[] restarts = new int[16];
    private int restartCount;
    private int sinceRestart;
    private byte[] lastKey = new byte[0];
    private int entries;

    BlockBuilder(int restartInterval) {
        if (restartInterval < 1) {
            throw new IllegalArgumentException("restart interval must be at least 1: " + restartInterval);
        }
        this.restartInterval = restartInterval;
        reset();
    }

    void reset() {
        size = 0;
        restartCount = 0;
        sinceRestart = 0;
        lastKey = new byte[0];
        entries = 0;
        addRestart(0);
    }

    void add(byte[] key, byte[] value) {
        add(key, value, 0, value.length);
    }

    /** As {@link #add(byte[], byte[])} with the value {@code value[valueOffset, valueOffset + valueLength)}. */
    void add(byte[] key, byte[] value, int valueOffset, int valueLength) {
        int shared = 0;
        if (sinceRestart < restartInterval) {
            int max = Math.min(lastKey.length, key.length);
            int mismatch = Arrays.mismatch(lastKey, 0, max, key, 0, max);
            shared = mismatch < 0 ? max : mismatch;
        } else {
            addRestart(size);
            sinceRestart = 0;
        }
        int unshared = key.length - shared;
        ensure(3 * Varint.MAX_BYTES_32 + unshared + valueLength);
        size = Varint.write(buf, size, shared);
        size = Varint.write(buf, size, unshared);
        size = Varint.write(buf, size, valueLength);
        System.arraycopy(key, shared, buf, size, unshared);
        size += unshared;
        System.arraycopy(value, valueOffset, buf, size, valueLength);
        size += valueLength;
        lastKey = key;
        sinceRestart++;
        entries++;
    }

    private void ensure(int more) {
        if (buf.length - size < more) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    private void addRestart(int offset) {
        if (restartCount == restarts.length) {
            restarts = Arrays.copyOf(restarts, restartCount * 2);
        }
        restarts[restartCount++] = offset;
    }

    boolean isEmpty() {
        return entries == 0;
    }

    int entries() {
        return entries;
    }

    byte[] lastKey() {
        return lastKey;
    }

    /** Size of the block if it were finished now. */
    int estimatedSize() {
        return size + (restartCount + 1) * Integer.BYTES;
    }

    /** The finished block contents as their own array; call {@link #reset()} before building the next block. */
    byte[] finish() {
        int length = finishInPlace(); // first: it may move the block to a larger array
        return Arrays.copyOf(buf, length);
    }

    /**
     * Finishes the block in {@link #buffer()} and returns its length: the contents are
     * {@code buffer()[0..length)}, valid until {@link #reset()}.
     */
    int finishInPlace() {
        ensure((restartCount + 1) * Integer.BYTES);
        for (int i = 0; i < restartCount; i++) {
            writeInt(restarts[i]);
        }
        writeInt(restartCount);
        return size;
    }

    /**
     * After {@link #finishInPlace()}: gives up the array holding the finished block (the caller's
     * now) and builds on in {@code next}, or in a new array of the same size when {@code next} is
     * null or smaller; call {@link #reset()} before the next block as usual.
     */
    byte[] handOverBuffer(byte[] next) {
        byte[] full = buf;
        buf = next != null && next.length >= full.length ? next : new byte[full.length];
        return full;
    }

    /** The array the block is built in (see {@link #finishInPlace()}). */
    byte[] buffer() {
        return buf;
    }

    private void writeInt(int v) {
        buf[size++] = (byte) v;
        buf[size++] = (byte) (v >>> 8);
        buf[size++] = (byte) (v >>> 16);
        buf[size++] = (byte) (v >>> 24);
    }
}
