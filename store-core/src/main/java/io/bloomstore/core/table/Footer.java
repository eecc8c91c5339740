package io.bloomstore.core.table;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FormatVersionException;

/**
 * The fixed 48 bytes at the end of every table file: handles of the index and properties
 * blocks, the format version, a CRC32C of those fields and the magic number
 * (docs/format/sstable.md, "Footer").
 *
 * <p>Thread safety: immutable.
 */
record Footer(BlockHandle index, BlockHandle properties) {
    static final int BYTES = 48;
    static final int FORMAT_VERSION = 1;
    /** The ASCII bytes "BloomSST" read as a little-endian long. */
    static final long MAGIC = 0x5453536D6F6F6C42L;
    private static final int CRC_OFFSET = 36;
    private static final int MAGIC_OFFSET = 40;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(index.offset()).putLong(index.size()).putLong(properties.offset()).putLong(properties.size())
                .putInt(FORMAT_VERSION);
        b.putInt(crc(b.array()));
        b.putLong(MAGIC);
        return b.array();
    }

    /**
     * Decodes the footer read from the last {@link #BYTES} bytes of a file of {@code fileSize}
     * bytes, checking magic, CRC, version and that both blocks lie before the footer.
     */
    static Footer decode(byte[] bytes, Path file, long fileSize) throws CorruptionException, FormatVersionException {
        long at = fileSize - BYTES;
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long magic = b.getLong(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw CorruptionException.mismatch(file, at + MAGIC_OFFSET, "table magic number", MAGIC, magic);
        }
        int stored = b.getInt(CRC_OFFSET);
        int actual = crc(bytes);
        if (stored != actual) {
            throw CorruptionException.mismatch(file, at + CRC_OFFSET, "footer CRC32C", stored & 0xFFFFFFFFL,
                    actual & 0xFFFFFFFFL);
        }
        int version = b.getInt(32);
        if (version != FORMAT_VERSION) {
            throw new FormatVersionException(file, "SSTable", version, FORMAT_VERSION);
        }
        BlockHandle index = handle(b, 0, file, at);
        BlockHandle properties = handle(b, 16, file, at);
        return new Footer(index, properties);
    }

    private static BlockHandle handle(ByteBuffer b, int field, Path file, long footerStart) throws CorruptionException {
        long offset = b.getLong(field);
        long size = b.getLong(field + 8);
        if (offset < 0 || size < 0 || size > Integer.MAX_VALUE - BlockCodec.TRAILER_BYTES
                || offset + size + BlockCodec.TRAILER_BYTES > footerStart) {
            throw new CorruptionException(file, footerStart + field, "block handle (" + offset + ", " + size
                    + ") lies outside the " + footerStart + " bytes before the footer");
        }
        return new BlockHandle(offset, size);
    }

    private static int crc(byte[] bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes, 0, CRC_OFFSET);
        return (int) c.getValue();
    }
}
