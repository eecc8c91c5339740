package io.bloomstore.core.table;

import java.nio.file.Path;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.cache.BlockCache;

/**
 * The decoded (checksum-verified, decompressed) contents of one block: entries followed by
 * the restart array and its length (docs/format/sstable.md, "Block contents"). The
 * constructor checks the restart array, so iterators can trust it; the block cache keeps
 * blocks in this checked form.
 *
 * <p>The block's bytes are {@code data[start, start + length)}: an array of its own, a reader's
 * scratch array, or a region of one of the block cache's slabs ({@link BlockSlabs}). Every
 * offset it gives ({@link #restartsOffset}, {@link #restartPoint}) is an index into {@code data}.
 *
 * <p>Thread safety: immutable; any number of {@link BlockIterator}s may read it concurrently.
 */
final class Block implements BlockCache.Entry {
    final byte[] data;
    /** Where the block's bytes start in {@code data}. */
    final int start;
    /** The block's bytes are {@code data[start, start + length)}. */
    final int length;
    /** Index in {@code data} of the restart array. */
    final int restartsOffset;
    final int restartCount;
    final Path file;
    final long fileOffset;

    /**
     * @param file       the table file, for corruption reports
     * @param fileOffset where the block starts in that file
     */
    Block(byte[] data, Path file, long fileOffset) throws CorruptionException {
        this(data, data.length, file, fileOffset);
    }

    /**
     * A block held in {@code data[0, length)}: a reader's scratch array, longer than the block,
     * for a block decoded to be searched once and dropped (never cached).
     */
    Block(byte[] data, int length, Path file, long fileOffset) throws CorruptionException {
        this(data, 0, length, file, fileOffset);
    }

    /** A block held in {@code data[start, start + length)}. */
    Block(byte[] data, int start, int length, Path file, long fileOffset) throws CorruptionException {
        this.data = data;
        this.start = start;
        this.length = length;
        this.file = file;
        this.fileOffset = fileOffset;
        if (length < Integer.BYTES) {
            throw new CorruptionException(file, fileOffset, "block of " + length + " bytes has no restart count");
        }
        long count = readInt(data, start + length - Integer.BYTES) & 0xFFFFFFFFL;
        long offset = length - Integer.BYTES - count * Integer.BYTES;
        if (count == 0 || offset < 0) {
            throw new CorruptionException(file, fileOffset, "impossible restart count " + count + " in a block of "
                    + length + " bytes");
        }
        this.restartCount = (int) count;
        this.restartsOffset = start + (int) offset;
        int previous = -1;
        for (int i = 0; i < restartCount; i++) {
            int r = restartPoint(i) - start;
            if (r <= previous || r >= offset) {
                throw new CorruptionException(file, fileOffset, "restart point " + i + " at " + r
                        + " is out of order or past the entries (" + offset + " bytes)");
            }
            previous = r;
        }
        if (restartPoint(0) != start) {
            throw new CorruptionException(file, fileOffset, "first restart point is " + (restartPoint(0) - start)
                    + ", not 0");
        }
    }

    /** The same checked block, its bytes now at {@code data[start, start + length)} (a copy of these): not checked again. */
    private Block(Block b, byte[] data, int start) {
        this.data = data;
        this.start = start;
        this.length = b.length;
        this.file = b.file;
        this.fileOffset = b.fileOffset;
        this.restartCount = b.restartCount;
        this.restartsOffset = b.restartsOffset - b.start + start;
    }

    /** This block with its bytes copied to {@code data[start, start + length)}. */
    @Override
    public Block movedTo(byte[] data, int start) {
        System.arraycopy(this.data, this.start, data, start, length);
        return new Block(this, data, start);
    }

    /** The index in {@code data} of restart point {@code index}'s entry. */
    int restartPoint(int index) {
        return start + readInt(data, restartsOffset + index * Integer.BYTES);
    }

    @Override
    public int sizeBytes() {
        return length;
    }

    BlockIterator iterator() {
        return new BlockIterator(this);
    }

    static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }
}
