package io.bloomstore.core.table;

import java.io.ByteArrayOutputStream;
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
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream(4096 + 512);
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
        buf.reset();
        restartCount = 0;
        sinceRestart = 0;
        lastKey = new byte[0];
        entries = 0;
        addRestart(0);
    }

    void add(byte[] key, byte[] value) {
        int shared = 0;
        if (sinceRestart < restartInterval) {
            int max = Math.min(lastKey.length, key.length);
            int mismatch = Arrays.mismatch(lastKey, 0, max, key, 0, max);
            shared = mismatch < 0 ? max : mismatch;
        } else {
            addRestart(buf.size());
            sinceRestart = 0;
        }
        Varint.write(buf, shared);
        Varint.write(buf, key.length - shared);
        Varint.write(buf, value.length);
        buf.write(key, shared, key.length - shared);
        buf.write(value, 0, value.length);
        lastKey = key;
        sinceRestart++;
        entries++;
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
        return buf.size() + (restartCount + 1) * Integer.BYTES;
    }

    /** The finished block contents; call {@link #reset()} before building the next block. */
    byte[] finish() {
        for (int i = 0; i < restartCount; i++) {
            writeInt(restarts[i]);
        }
        writeInt(restartCount);
        return buf.toByteArray();
    }

    private void writeInt(int v) {
        buf.write(v);
        buf.write(v >>> 8);
        buf.write(v >>> 16);
        buf.write(v >>> 24);
    }
}
