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
 * <p>Thread safety: immutable; any number of {@link BlockIterator}s may read it concurrently.
 */
final class Block implements BlockCache.Entry {
    final byte[] data;
    /** The block's bytes are {@code data[0, length)}. */
    final int length;
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
        this.data = data;
        this.length = length;
        this.file = file;
        this.fileOffset = fileOffset;
        if (length < Integer.BYTES) {
            throw new CorruptionException(file, fileOffset, "block of " + length + " bytes has no restart count");
        }
        long count = readInt(data, length - Integer.BYTES) & 0xFFFFFFFFL;
        long offset = length - Integer.BYTES - count * Integer.BYTES;
        if (count == 0 || offset < 0) {
            throw new CorruptionException(file, fileOffset, "impossible restart count " + count + " in a block of "
                    + length + " bytes");
        }
        this.restartCount = (int) count;
        this.restartsOffset = (int) offset;
        int previous = -1;
        for (int i = 0; i < restartCount; i++) {
            int r = restartPoint(i);
            if (r <= previous || r >= restartsOffset) {
                throw new CorruptionException(file, fileOffset, "restart point " + i + " at " + r
                        + " is out of order or past the entries (" + restartsOffset + " bytes)");
            }
            previous = r;
        }
        if (restartPoint(0) != 0) {
            throw new CorruptionException(file, fileOffset, "first restart point is " + restartPoint(0) + ", not 0");
        }
    }

    int restartPoint(int index) {
        return readInt(data, restartsOffset + index * Integer.BYTES);
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
