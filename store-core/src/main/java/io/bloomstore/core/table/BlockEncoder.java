package io.bloomstore.core.table;

import io.bloomstore.core.Compression;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;

/**
 * Writes blocks in their stored form ({@link BlockCodec}: payload, type byte, CRC32C) straight
 * to a file, reusing one compression buffer, so building a table allocates nothing per block:
 * the contents are compressed from the block builder's own array, and a block that LZ4 does not
 * shrink by an eighth is written from that array with its trailer after it (as LevelDB keeps such
 * blocks uncompressed). The format is docs/format/sstable.md's "Stored block"; the golden tables
 * of {@code GoldenTableTest} pin the bytes.
 *
 * <p>Thread safety: not thread-safe; one per table builder.
 */
final class BlockEncoder {
    private static final LZ4Compressor LZ4 = Lz4.FACTORY.fastCompressor();

    private final CRC32C crc = new CRC32C();
    private final byte[] trailer = new byte[BlockCodec.TRAILER_BYTES];
    private byte[] compressed = new byte[0];

    /**
     * Writes {@code contents[0..length)} stored with {@code compression} at the file's position;
     * returns the block's handle.
     */
    BlockHandle write(WritableFile out, byte[] contents, int length, Compression compression) throws IOException {
        long offset = out.position();
        if (compression == Compression.LZ4) {
            int max = maxStored(length);
            if (compressed.length < max) {
                compressed = new byte[max];
            }
            int stored = compressWorthIt(contents, length, compressed);
            if (stored > 0) {
                writeStored(out, compressed, stored, Compression.LZ4);
                return new BlockHandle(offset, stored);
            }
        }
        writeStored(out, contents, length, Compression.NONE);
        return new BlockHandle(offset, length);
    }

    /** The bytes {@link #compressWorthIt} may fill for a block of {@code length} bytes. */
    private static int maxStored(int length) {
        return Integer.BYTES + LZ4.maxCompressedLength(length);
    }

    /**
     * LZ4 of {@code contents[0..length)}, behind its raw length, into {@code into} (at least
     * {@link #maxStored} bytes); returns the stored length, or 0 when LZ4 does not shrink the block by
     * an eighth (it is then stored as it is).
     */
    private static int compressWorthIt(byte[] contents, int length, byte[] into) {
        BlockCodec.putInt(into, 0, length);
        int stored = Integer.BYTES + LZ4.compress(contents, 0, length, into, Integer.BYTES, into.length - Integer.BYTES);
        return stored <= length - length / 8 ? stored : 0;
    }

    /** Fills {@code trailer}: the stored type and the CRC32C of the payload and that type byte. */
    private static void fillTrailer(byte[] trailer, CRC32C crc, byte[] payload, int length, Compression type) {
        trailer[0] = (byte) type.code();
        crc.reset();
        crc.update(payload, 0, length);
        crc.update(trailer, 0, 1);
        BlockCodec.putInt(trailer, 1, (int) crc.getValue());
    }

    /**
     * A block in its stored form, made off the writing thread ({@link #encode}) and written later,
     * in order ({@link #writeEncoded}): the same bytes {@link #write} would have written.
     */
    static final class Encoded {
        final byte[] payload;
        final int length;
        final byte[] trailer;

        private Encoded(byte[] payload, int length, byte[] trailer) {
            this.payload = payload;
            this.length = length;
            this.trailer = trailer;
        }
    }

    /**
     * {@code contents[0..length)} in its stored form, as {@link #write} stores it; any thread (it
     * allocates its buffers; the LZ4 compressor is thread-safe).
     */
    static Encoded encode(byte[] contents, int length, Compression compression) {
        return encode(contents, length, compression, null);
    }

    /**
     * As {@link #encode(byte[], int, Compression)}, compressing into {@code scratch} when it is
     * large enough (a spare array of the caller's; else a new one): the result's payload is then
     * {@code contents} or {@code scratch} or a new array.
     */
    static Encoded encode(byte[] contents, int length, Compression compression, byte[] scratch) {
        byte[] payload = contents;
        int stored = length;
        Compression type = Compression.NONE;
        if (compression == Compression.LZ4) {
            int max = maxStored(length);
            byte[] c = scratch != null && scratch.length >= max ? scratch : new byte[max];
            int n = compressWorthIt(contents, length, c);
            if (n > 0) {
                payload = c;
                stored = n;
                type = Compression.LZ4;
            }
        }
        byte[] trailer = new byte[BlockCodec.TRAILER_BYTES];
        fillTrailer(trailer, new CRC32C(), payload, stored, type);
        return new Encoded(payload, stored, trailer);
    }

    /** Writes a block {@link #encode} made at the file's position; returns its handle. */
    static BlockHandle writeEncoded(WritableFile out, Encoded e) throws IOException {
        long offset = out.position();
        out.write(e.payload, 0, e.length);
        out.write(e.trailer, 0, e.trailer.length);
        return new BlockHandle(offset, e.length);
    }

    private void writeStored(WritableFile out, byte[] payload, int length, Compression type) throws IOException {
        fillTrailer(trailer, crc, payload, length, type);
        out.write(payload, 0, length);
        out.write(trailer, 0, trailer.length);
    }
}
