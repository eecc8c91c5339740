package io.bloomstore.core.table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.bloomstore.bloom.CorruptionException;

/**
 * A table's index, decoded once on open and kept on the heap: the last internal key and the
 * {@link BlockHandle} of every data block, searched by binary search. Small: one entry per
 * data block (about 4 KiB of data).
 *
 * <p>Decoding checks that keys increase and that the handles tile the data region exactly,
 * so a damaged index is a {@link CorruptionException}, never a read of the wrong bytes.
 *
 * <p>Thread safety: immutable.
 */
final class TableIndex {
    private final byte[][] lastKeys;
    private final long[] offsets;
    private final int[] sizes;

    private TableIndex(byte[][] lastKeys, long[] offsets, int[] sizes) {
        this.lastKeys = lastKeys;
        this.offsets = offsets;
        this.sizes = sizes;
    }

    /**
     * Estimated heap bytes held by this index: each key array (16-byte header plus its bytes,
     * rounded up to 8), a reference to it, and 12 bytes of handle per block, plus the three
     * arrays' headers. An estimate with the usual 64-bit, compressed-reference layout, not a
     * measurement.
     */
    long heapBytes() {
        long bytes = 3 * 16;
        for (byte[] key : lastKeys) {
            bytes += ((16 + key.length + 7) & ~7L) + 4 + 8 + 4;
        }
        return bytes;
    }

    /** Decodes the index block of a table whose data blocks occupy bytes [0, dataSize). */
    static TableIndex decode(Block block, long expectedBlocks, long dataSize) throws CorruptionException {
        Path file = block.file;
        List<byte[]> keys = new ArrayList<>();
        List<BlockHandle> handles = new ArrayList<>();
        BlockIterator it = block.iterator();
        long expectedOffset = 0;
        for (it.seekToFirst(); it.valid(); it.next()) {
            BlockHandle h = BlockHandle.decode(it.value());
            if (h == null || h.offset() != expectedOffset || h.size() > Integer.MAX_VALUE - BlockCodec.TRAILER_BYTES) {
                throw new CorruptionException(file, block.fileOffset, "index entry " + keys.size() + " holds "
                        + (h == null ? "a malformed handle" : h) + "; expected a block at " + expectedOffset);
            }
            if (!keys.isEmpty() && InternalKeys.compare(keys.get(keys.size() - 1), it.key()) >= 0) {
                throw new CorruptionException(file, block.fileOffset, "index keys out of order at entry " + keys.size());
            }
            keys.add(it.key());
            handles.add(h);
            expectedOffset = h.offset() + h.storedSize();
        }
        if (keys.size() != expectedBlocks || expectedOffset != dataSize) {
            throw new CorruptionException(file, block.fileOffset, "index covers " + keys.size() + " blocks and "
                    + expectedOffset + " bytes; properties say " + expectedBlocks + " blocks and " + dataSize + " bytes");
        }
        long[] offsets = new long[keys.size()];
        int[] sizes = new int[keys.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = handles.get(i).offset();
            sizes[i] = (int) handles.get(i).size();
        }
        return new TableIndex(keys.toArray(new byte[0][]), offsets, sizes);
    }

    int blockCount() {
        return lastKeys.length;
    }

    BlockHandle handle(int block) {
        return new BlockHandle(offsets[block], sizes[block]);
    }

    byte[] lastKey(int block) {
        return lastKeys[block];
    }

    /** The first block whose last key is ≥ {@code target}, or {@link #blockCount()} when none is. */
    int findBlock(byte[] target) {
        int lo = 0;
        int hi = lastKeys.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (InternalKeys.compare(lastKeys[mid], target) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
