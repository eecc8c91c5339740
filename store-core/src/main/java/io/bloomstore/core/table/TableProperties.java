package io.bloomstore.core.table;

import io.bloomstore.core.Compression;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterKind;

/**
 * Facts about a table, stored in its properties block (docs/format/sstable.md, "Properties")
 * and read on open: entry counts and key range, sequence range, how blocks were built and
 * whether, of which kind and how large the table's filter is.
 *
 * <p>Thread safety: immutable (the key arrays must not be modified).
 *
 * @param entries          internal entries
 * @param dataBlocks       number of data blocks
 * @param dataSize         bytes of stored data blocks, trailers included
 * @param smallestSeq      smallest sequence number
 * @param largestSeq       largest sequence number
 * @param filterKeys       distinct user keys in the filter (0 without filter)
 * @param filterFileSize   bytes of the filter sidecar (0 without filter)
 * @param bitsPerKey       configured filter bits per key (0 without filter)
 * @param filterKind       the filter's kind, or null when the table has none
 * @param compression      compression the writer asked for (a block may still be stored raw)
 * @param blockSize        target data block size
 * @param restartInterval  restart interval of data blocks
 * @param smallestUserKey  smallest user key
 * @param largestUserKey   largest user key
 */
public record TableProperties(long entries, long dataBlocks, long dataSize, long smallestSeq, long largestSeq,
                              long filterKeys, long filterFileSize, double bitsPerKey, FilterKind filterKind,
                              Compression compression, int blockSize, int restartInterval, byte[] smallestUserKey,
                              byte[] largestUserKey) {
    private static final int FIXED_BYTES = 76;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(FIXED_BYTES + 4 + smallestUserKey.length + 4 + largestUserKey.length)
                .order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(entries).putLong(dataBlocks).putLong(dataSize).putLong(smallestSeq).putLong(largestSeq)
                .putLong(filterKeys).putLong(filterFileSize).putDouble(bitsPerKey)
                .put((byte) (filterKind == null ? 0 : filterKind.id())).put((byte) compression.code()).putShort((short) 0)
                .putInt(blockSize).putInt(restartInterval);
        b.putInt(smallestUserKey.length).put(smallestUserKey).putInt(largestUserKey.length).put(largestUserKey);
        return b.array();
    }

    /** Decodes and checks the contents of a properties block found at {@code offset} of {@code file}. */
    static TableProperties decode(byte[] contents, Path file, long offset) throws CorruptionException {
        ByteBuffer b = ByteBuffer.wrap(contents).order(ByteOrder.LITTLE_ENDIAN);
        try {
            long entries = b.getLong();
            long dataBlocks = b.getLong();
            long dataSize = b.getLong();
            long smallestSeq = b.getLong();
            long largestSeq = b.getLong();
            long filterKeys = b.getLong();
            long filterFileSize = b.getLong();
            double bitsPerKey = b.getDouble();
            int kindId = Byte.toUnsignedInt(b.get());
            int compressionCode = Byte.toUnsignedInt(b.get());
            short reserved = b.getShort();
            int blockSize = b.getInt();
            int restartInterval = b.getInt();
            byte[] smallest = readKey(b, file, offset);
            byte[] largest = readKey(b, file, offset);
            if (b.hasRemaining()) {
                throw new CorruptionException(file, offset, b.remaining() + " trailing bytes in the properties block");
            }
            FilterKind kind = null;
            if (kindId != 0) {
                kind = FilterKind.byId(kindId);
            }
            Compression compression = BlockCodec.compressionByCode(compressionCode);
            if (compression == null || reserved != 0 || entries < 1 || dataBlocks < 1 || dataSize < 0
                    || smallestSeq < 0 || smallestSeq > largestSeq || largestSeq > InternalKeys.MAX_SEQUENCE
                    || Arrays.compareUnsigned(smallest, largest) > 0
                    || (kind == null) != (filterFileSize == 0) || filterKeys < 0 || filterFileSize < 0) {
                throw new CorruptionException(file, offset, "inconsistent table properties");
            }
            return new TableProperties(entries, dataBlocks, dataSize, smallestSeq, largestSeq, filterKeys,
                    filterFileSize, bitsPerKey, kind, compression, blockSize, restartInterval, smallest, largest);
        } catch (BufferUnderflowException e) {
            throw new CorruptionException(file, offset, "properties block of " + contents.length + " bytes is truncated", e);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(file, offset, "bad properties field: " + e.getMessage(), e);
        }
    }

    private static byte[] readKey(ByteBuffer b, Path file, long offset) throws CorruptionException {
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
            throw new CorruptionException(file, offset, "key length " + length + " runs past the properties block");
        }
        byte[] k = new byte[length];
        b.get(k);
        return k;
    }
}
