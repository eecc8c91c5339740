package io.bloomstore.core.table;

import java.util.Arrays;

import io.bloomstore.bloom.CorruptionException;

/**
 * A table's index block searched where it lies, without decoding it: binary search over its
 * restart points (the index restarts at every entry, docs/format/sstable.md), each probed entry
 * checked as it is read. A table's first lookups use it ({@link TableIndexLoader#lookupIndex}):
 * a one-shot {@code get} reads one or two keys of a table, and decoding the whole index (thousands
 * of entries, each checked against the last) cost it more than the lookup itself. The index block
 * passed its checksum when read, so the order of keys it does not probe is left to the full
 * decode ({@link TableIndex#decode}), which checks every entry once the table is used more.
 *
 * <p>Thread safety: immutable, on the heap; safe for concurrent reads, also after its table closes.
 */
final class InPlaceIndex implements IndexView {
    private final Block block;
    private final long dataSize;
    private final int limit;

    private InPlaceIndex(Block block, long dataSize) {
        this.block = block;
        this.dataSize = dataSize;
        this.limit = block.restartsOffset;
    }

    /**
     * The index in {@code block}, of a table with {@code expectedBlocks} data blocks in bytes
     * [0, dataSize) whose largest user key is {@code largestUserKey}: the entry count and the last
     * entry are checked here, the others as lookups probe them.
     */
    static InPlaceIndex of(Block block, long expectedBlocks, long dataSize, byte[] largestUserKey)
            throws CorruptionException {
        if (expectedBlocks < 1 || expectedBlocks != block.restartCount) {
            throw new CorruptionException(block.file, block.fileOffset, "index holds " + block.restartCount
                    + " entries; properties say " + expectedBlocks + " data blocks");
        }
        InPlaceIndex index = new InPlaceIndex(block, dataSize);
        int last = block.restartCount - 1;
        int[] entry = index.entry(last);
        if (Arrays.compareUnsigned(block.data, entry[0], entry[0] + entry[1] - InternalKeys.TRAILER_BYTES,
                largestUserKey, 0, largestUserKey.length) != 0) {
            throw new CorruptionException(block.file, block.fileOffset, "index ends at another key than the"
                    + " properties' largest key");
        }
        BlockHandle h = index.handle(last);
        if (h.offset() + h.storedSize() != dataSize) {
            throw new CorruptionException(block.file, block.fileOffset, "index's last block " + h + " does not end"
                    + " the data region of " + dataSize + " bytes");
        }
        return index;
    }

    @Override
    public int blockCount() {
        return block.restartCount;
    }

    @Override
    public int findBlock(byte[] target) throws CorruptionException {
        int lo = 0;
        int hi = block.restartCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int[] e = entry(mid);
            if (InternalKeys.compare(block.data, e[0], e[1], target, 0, target.length) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public BlockHandle handle(int b) throws CorruptionException {
        int[] e = entry(b);
        int valueEnd = e[0] + e[1] + e[2];
        int[] pos = {e[0] + e[1]};
        long offset = Varint.read64(block.data, pos, valueEnd);
        long size = offset < 0 ? -1 : Varint.read64(block.data, pos, valueEnd);
        if (size < 0 || pos[0] != valueEnd || size > Integer.MAX_VALUE - BlockCodec.TRAILER_BYTES
                || offset > dataSize - size - BlockCodec.TRAILER_BYTES) {
            throw new CorruptionException(block.file, block.fileOffset, "index entry " + b + " holds "
                    + (size < 0 || pos[0] != valueEnd ? "a malformed handle" : new BlockHandle(offset, size))
                    + "; the data region has " + dataSize + " bytes");
        }
        return new BlockHandle(offset, size);
    }

    /** Entry {@code i}'s key start, key length and value length, checked to lie within the entries. */
    private int[] entry(int i) throws CorruptionException {
        byte[] data = block.data;
        int at = block.restartPoint(i);
        int[] pos = {at};
        int shared = Varint.read32(data, pos, limit);
        int keyLength = shared < 0 ? -1 : Varint.read32(data, pos, limit);
        int valueLength = keyLength < 0 ? -1 : Varint.read32(data, pos, limit);
        int keyStart = pos[0];
        if (valueLength < 0 || shared != 0 || keyLength < InternalKeys.TRAILER_BYTES
                || (long) keyStart + keyLength + valueLength > limit) {
            throw new CorruptionException(block.file, block.fileOffset, "index entry " + i + " at byte " + at
                    + " is malformed");
        }
        return new int[] {keyStart, keyLength, valueLength};
    }
}
