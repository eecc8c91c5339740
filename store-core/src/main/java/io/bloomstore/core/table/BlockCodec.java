package io.bloomstore.core.table;

import io.bloomstore.core.Compression;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import io.bloomstore.bloom.CorruptionException;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Reads the bytes of a block stored on disk (written by {@link BlockEncoder}):
 * {@code StoredBlock = Payload, Type u8, CRC32C u32} where the CRC covers the payload and the
 * type byte (docs/format/sstable.md, "Stored block"). A block is kept uncompressed when LZ4
 * does not save at least an eighth of it, as LevelDB does.
 *
 * <p>Decoding checks the CRC first and only then decompresses, with LZ4's safe decompressor
 * and a bounded output size, so damaged bytes yield a {@link CorruptionException}.
 *
 * <p>Thread safety: stateless.
 */
final class BlockCodec {
    static final int TRAILER_BYTES = 5;

    /** Initialises LZ4's factory ({@link Lz4#FACTORY}); see {@link TableReader#initialiseCodecs()}. */
    static void initialise() {
        // Reading the factory is what initialises its class; nothing else to do.
        if (Lz4.FACTORY == null) {
            throw new IllegalStateException("no LZ4 implementation");
        }
    }
    /** LZ4 cannot expand data by more than 255 times; a larger declared length is damage. */
    private static final int LZ4_MAX_RATIO = 255;
    /** {@link Compression#values()} copies its array on every call; a decode looks its type up once per block. */
    private static final Compression[] COMPRESSIONS = Compression.values();

    private BlockCodec() {
    }

    /**
     * The contents of a stored block read from {@code file} at {@code offset}: checks the CRC
     * and the type, then decompresses.
     */
    static byte[] decode(byte[] stored, Path file, long offset) throws CorruptionException {
        return decode(ByteBuffer.wrap(stored), file, offset);
    }

    /**
     * As {@link #decode(byte[], Path, long)} for the stored block between {@code stored}'s
     * position and limit, which may be a direct buffer: the contents are decompressed (or
     * copied) straight out of it into the one array returned. The buffer's position and limit
     * are left as they were.
     */
    static byte[] decode(ByteBuffer stored, Path file, long offset) throws CorruptionException {
        return decode(stored, file, offset, null);
    }

    /**
     * As {@link #decode(ByteBuffer, Path, long)}, into {@code scratch}'s array when it is not
     * null (then the contents are {@code array[0, scratch.length())} and the next decode into
     * that scratch overwrites them), else into a fresh array of exactly the contents' length.
     */
    static byte[] decode(ByteBuffer stored, Path file, long offset, ScratchBlock scratch) throws CorruptionException {
        int start = stored.position();
        int storedLength = stored.remaining();
        if (storedLength < TRAILER_BYTES) {
            throw new CorruptionException(file, offset, "stored block of " + storedLength + " bytes has no trailer");
        }
        int length = storedLength - TRAILER_BYTES;
        int expected = readInt(stored, start + length + 1);
        CRC32C c = new CRC32C();
        int limit = stored.limit();
        c.update(stored.limit(start + length + 1));
        stored.limit(limit).position(start);
        int actual = (int) c.getValue();
        if (expected != actual) {
            throw CorruptionException.mismatch(file, offset + length + 1, "block CRC32C (block at " + offset + ", "
                    + length + " bytes)", expected & 0xFFFFFFFFL, actual & 0xFFFFFFFFL);
        }
        int typeCode = stored.get(start + length) & 0xFF;
        Compression type = compressionByCode(typeCode);
        if (type == null) {
            throw new CorruptionException(file, offset + length, "unknown block compression type " + typeCode);
        }
        if (type == Compression.NONE) {
            byte[] contents = scratch == null ? new byte[length] : scratch.reserve(length);
            stored.get(start, contents, 0, length);
            return contents;
        }
        return decompressLz4(stored, start, length, file, offset, scratch);
    }

    private static byte[] decompressLz4(ByteBuffer stored, int start, int length, Path file, long offset,
                                        ScratchBlock scratch) throws CorruptionException {
        if (length < Integer.BYTES) {
            throw new CorruptionException(file, offset, "LZ4 block of " + length + " bytes has no length prefix");
        }
        long declared = readInt(stored, start) & 0xFFFFFFFFL;
        if (declared > (long) (length - Integer.BYTES) * LZ4_MAX_RATIO + 16 || declared > Integer.MAX_VALUE - 16) {
            throw new CorruptionException(file, offset, "impossible uncompressed length " + declared + " for "
                    + length + " stored bytes");
        }
        byte[] contents = scratch == null ? new byte[(int) declared] : scratch.reserve((int) declared);
        // Lz4.FACTORY, not a copy in this class: LZ4's start-up (its factory builds and tests every
        // compressor, 3-13 ms of a cold process) waits for the first compressed block, and a
        // command that decodes only uncompressed ones (table properties and indexes: stats) skips it.
        LZ4SafeDecompressor d = Lz4.FACTORY.safeDecompressor();
        int n;
        try {
            n = d.decompress(stored, start + Integer.BYTES, length - Integer.BYTES, ByteBuffer.wrap(contents), 0,
                    (int) declared);
        } catch (LZ4Exception e) {
            throw new CorruptionException(file, offset, "malformed LZ4 block", e);
        }
        if (n != declared) {
            throw CorruptionException.mismatch(file, offset, "uncompressed block length", declared, n);
        }
        return contents;
    }

    private static int readInt(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) | (b.get(at + 1) & 0xFF) << 8 | (b.get(at + 2) & 0xFF) << 16
                | (b.get(at + 3) & 0xFF) << 24;
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    /** The compression of a trailer's type byte, or null when the byte names none. */
    static Compression compressionByCode(int code) {
        for (Compression c : COMPRESSIONS) {
            if (c.code() == code) {
                return c;
            }
        }
        return null;
    }
}
