package io.bloomstore.core.table;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.storage.DirectBuffers;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * A table's index, checked once on open and kept off the Java heap: the last internal key and
 * the {@link BlockHandle} of every data block, in one direct buffer searched in place by binary
 * search. Layout (little-endian): the end offset of each key in the key area ({@code int} per
 * block), each block's handle ({@code long} offset, {@code int} size), then the keys back to back.
 * So the heap holds one small object per table however large the table, and a store of tens of
 * millions of keys opens without allocating an array per data block.
 *
 * <p>Decoding checks that keys increase and that the handles tile the data region exactly, so a
 * damaged index is a {@link CorruptionException}, never a read of the wrong bytes.
 *
 * <p>Thread safety: immutable until {@link #close()}, which its table calls once no reader can
 * use it any more (reference counting); safe for concurrent reads before that.
 */
final class TableIndex implements IndexView {
    private static final int HANDLE_BYTES = Long.BYTES + Integer.BYTES;

    /**
     * A byte-array view VarHandle: what a fresh JVM's C1 code reads fastest. Its class initialisation
     * links the process's first lambda (some 6-10 ms), so it waits for the first search of a decoded
     * index: a one-shot lookup searches the index in place (InPlaceIndex), and a scan from the first
     * key decodes the index without searching it.
     */
    private static final class Words {
        static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
                ByteOrder.BIG_ENDIAN);
    }

    private final int count;
    private final int handlesAt;
    private final int keysAt;
    private volatile ByteBuffer buffer;

    private TableIndex(ByteBuffer buffer, int count) {
        this.buffer = buffer;
        this.count = count;
        this.handlesAt = count * Integer.BYTES;
        this.keysAt = handlesAt + count * HANDLE_BYTES;
    }

    /** Heap bytes this index holds: its own fields and the buffer object, whatever the block count. */
    long heapBytes() {
        return 32 + 64;
    }

    /** Bytes of the index held outside the heap. */
    long offHeapBytes() {
        ByteBuffer b = buffer;
        return b == null ? 0 : b.capacity();
    }

    /**
     * Decodes the index block of a table whose data blocks occupy bytes [0, dataSize), in one
     * pass over the block's bytes and without an allocation per entry: index blocks restart at
     * every entry (docs/format/sstable.md), so each entry holds its whole key.
     */
    static TableIndex decode(Block block, long expectedBlocks, long dataSize) throws CorruptionException {
        Path file = block.file;
        byte[] data = block.data;
        int limit = block.restartsOffset;
        if (expectedBlocks < 1 || expectedBlocks != block.restartCount) {
            throw new CorruptionException(file, block.fileOffset, "index holds " + block.restartCount
                    + " entries; properties say " + expectedBlocks + " data blocks");
        }
        int n = (int) expectedBlocks;
        // The key area's size from the entries' headers (a malformed one is reported below).
        int[] pos = new int[1];
        long keyBytes = 0;
        for (int i = 0; i < n; i++) {
            pos[0] = block.restartPoint(i);
            int shared = Varint.read32(data, pos, limit);
            int keyLength = shared < 0 ? -1 : Varint.read32(data, pos, limit);
            keyBytes += Math.max(0, keyLength);
        }
        ByteBuffer b = DirectBuffers.allocate((int) Math.min(limit, keyBytes) + n * (Integer.BYTES + HANDLE_BYTES));
        TableIndex index = new TableIndex(b, n);
        try {
            long expectedOffset = 0;
            int previousStart = -1;
            int previousLength = 0;
            int keyEnd = 0;
            for (int i = 0; i < n; i++) {
                int entry = block.restartPoint(i);
                pos[0] = entry;
                int shared = Varint.read32(data, pos, limit);
                int keyLength = shared < 0 ? -1 : Varint.read32(data, pos, limit);
                int valueLength = keyLength < 0 ? -1 : Varint.read32(data, pos, limit);
                int keyStart = pos[0];
                if (valueLength < 0 || shared != 0 || keyLength < InternalKeys.TRAILER_BYTES
                        || (long) keyStart + keyLength + valueLength > limit
                        || keyStart + keyLength + valueLength != (i + 1 < n ? block.restartPoint(i + 1) : limit)) {
                    throw new CorruptionException(file, block.fileOffset, "index entry " + i + " at byte " + entry
                            + " is malformed");
                }
                if (previousStart >= 0 && InternalKeys.compare(data, previousStart, previousLength, data, keyStart,
                        keyLength) >= 0) {
                    throw new CorruptionException(file, block.fileOffset, "index keys out of order at entry " + i);
                }
                int valueEnd = keyStart + keyLength + valueLength;
                pos[0] = keyStart + keyLength;
                long offset = Varint.read64(data, pos, valueEnd);
                long size = offset < 0 ? -1 : Varint.read64(data, pos, valueEnd);
                if (size < 0 || pos[0] != valueEnd || offset != expectedOffset
                        || size > Integer.MAX_VALUE - BlockCodec.TRAILER_BYTES) {
                    throw new CorruptionException(file, block.fileOffset, "index entry " + i + " holds "
                            + (size < 0 || pos[0] != valueEnd ? "a malformed handle" : new BlockHandle(offset, size))
                            + "; expected a block at " + expectedOffset);
                }
                b.put(index.keysAt + keyEnd, data, keyStart, keyLength);
                keyEnd += keyLength;
                b.putInt(i * Integer.BYTES, keyEnd);
                b.putLong(index.handlesAt + i * HANDLE_BYTES, offset);
                b.putInt(index.handlesAt + i * HANDLE_BYTES + Long.BYTES, (int) size);
                expectedOffset = offset + size + BlockCodec.TRAILER_BYTES;
                previousStart = keyStart;
                previousLength = keyLength;
            }
            if (expectedOffset != dataSize) {
                throw new CorruptionException(file, block.fileOffset, "index covers " + n + " blocks and "
                        + expectedOffset + " bytes; properties say " + dataSize + " bytes");
            }
            return index;
        } catch (CorruptionException | RuntimeException e) {
            index.close();
            throw e;
        }
    }

    @Override
    public int blockCount() {
        return count;
    }

    @Override
    public BlockHandle handle(int block) {
        ByteBuffer b = buffer;
        int at = handlesAt + block * HANDLE_BYTES;
        return new BlockHandle(b.getLong(at), b.getInt(at + Long.BYTES));
    }

    /** The offset of a block in the table file. */
    long offset(int block) {
        return buffer.getLong(handlesAt + block * HANDLE_BYTES);
    }

    /** A copy of the last internal key of a block. */
    byte[] lastKey(int block) {
        ByteBuffer b = buffer;
        int start = keyStart(b, block);
        byte[] key = new byte[keyEnd(b, block) - start];
        b.get(keysAt + start, key);
        return key;
    }

    /** The first block whose last key is ≥ {@code target}, or {@link #blockCount()} when none is. */
    @Override
    public int findBlock(byte[] target) {
        ByteBuffer b = buffer;
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(b, mid, target) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Frees the off-heap memory. Only its table calls this, once no reader can use the index. */
    void close() {
        ByteBuffer b = buffer;
        buffer = null;
        if (b != null) {
            DirectBuffers.release(b);
        }
    }

    private static int keyStart(ByteBuffer b, int block) {
        return block == 0 ? 0 : b.getInt((block - 1) * Integer.BYTES);
    }

    private static int keyEnd(ByteBuffer b, int block) {
        return b.getInt(block * Integer.BYTES);
    }

    /** {@link InternalKeys#compare} of block {@code block}'s last key with {@code target}, in place. */
    private int compare(ByteBuffer b, int block, byte[] target) {
        int start = keysAt + keyStart(b, block);
        int userLength = keysAt + keyEnd(b, block) - start - InternalKeys.TRAILER_BYTES;
        int targetUserLength = target.length - InternalKeys.TRAILER_BYTES;
        int common = Math.min(userLength, targetUserLength);
        int j = 0;
        for (; j + Long.BYTES <= common; j += Long.BYTES) {
            long x = Long.reverseBytes(b.getLong(start + j));
            long y = (long) Words.BIG_ENDIAN_LONG.get(target, j);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; j < common; j++) {
            int c = (b.get(start + j) & 0xFF) - (target[j] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        if (userLength != targetUserLength) {
            return userLength - targetUserLength;
        }
        // Equal user keys: trailers descending (newest first). The trailer is little-endian, as the buffer.
        long trailer = b.getLong(start + userLength);
        return Long.compareUnsigned(InternalKeys.trailer(target), trailer);
    }
}
