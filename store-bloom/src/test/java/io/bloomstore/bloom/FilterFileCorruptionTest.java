package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * Damaged filter files: every way of damaging one is reported as a {@link CorruptionException}
 * naming the file and the offset, except a bad magic number ({@link NotAFilterFileException}:
 * the file is something else) and another format version ({@link FormatVersionException}).
 * A file shorter than the magic whose bytes start the magic is a truncated filter file.
 */
class FilterFileCorruptionTest {
    @TempDir
    Path dir;
    private Path good;
    private byte[] bytes;
    private long payloadLength;

    @BeforeEach
    void writeGoodFile() throws IOException {
        good = dir.resolve("good.bsf");
        try (BloomFilter f = BloomFilter.create(500, 0.01, Storage.HEAP)) {
            for (int i = 0; i < 500; i++) {
                f.add(("k" + i).getBytes(StandardCharsets.UTF_8));
            }
            FilterFile.write(f, good);
            payloadLength = f.header().payloadLength();
        }
        bytes = Files.readAllBytes(good);
        assertEquals(FilterFile.HEADER_BYTES + payloadLength + FilterFile.TRAILER_BYTES, bytes.length);
    }

    @Test
    void truncatedFileAtAnyLength() throws IOException {
        int[] lengths = {0, 1, 3, 4, 10, 59, 63, 64, 65, 72, bytes.length / 2, bytes.length - 8, bytes.length - 5,
                bytes.length - 1};
        for (int length : lengths) {
            Path p = damaged("truncated-" + length, Arrays.copyOf(bytes, length));
            CorruptionException e = assertCorrupt(p);
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
            assertEquals(length, e.offset(), "offset of a file cut at " + length);
        }
    }

    @Test
    void trailingBytes() throws IOException {
        assertCorrupt(damaged("longer", Arrays.copyOf(bytes, bytes.length + 8)));
    }

    @Test
    void flippedHeaderByteAtEveryPosition() throws IOException {
        for (int pos = 0; pos < FilterFile.HEADER_BYTES; pos++) {
            Path p = damaged("header-" + pos, flip(pos));
            if (pos < 4) {
                NotAFilterFileException e = assertThrows(NotAFilterFileException.class, () -> FilterFile.open(p));
                assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
            } else {
                CorruptionException e = assertCorrupt(p);
                assertEquals(60, e.offset(), "a header byte is guarded by the header CRC at 60, byte " + pos);
                assertTrue(e.getMessage().contains("header CRC32C"), e.getMessage());
            }
        }
    }

    @Test
    void flippedPayloadByte() throws IOException {
        for (long pos : new long[] {FilterFile.HEADER_BYTES, FilterFile.HEADER_BYTES + payloadLength / 2,
                FilterFile.HEADER_BYTES + payloadLength - 1}) {
            Path p = damaged("payload-" + pos, flip((int) pos));
            CorruptionException e = assertCorrupt(p);
            assertEquals(FilterFile.HEADER_BYTES + payloadLength, e.offset());
            assertTrue(e.getMessage().contains("payload CRC32C"), e.getMessage());
            assertCorrupt(p, () -> FilterFile.verify(p));
            // Opening header-only skips the payload check by request, and still opens.
            FilterFile.open(p, false).close();
        }
    }

    @Test
    void flippedTrailerByte() throws IOException {
        for (int i = 0; i < FilterFile.TRAILER_BYTES; i++) {
            int pos = (int) (FilterFile.HEADER_BYTES + payloadLength) + i;
            Path p = damaged("trailer-" + i, flip(pos));
            CorruptionException e = assertCorrupt(p);
            long expectedOffset = i < 4 ? FilterFile.HEADER_BYTES + payloadLength : FilterFile.HEADER_BYTES + payloadLength + 4;
            assertEquals(expectedOffset, e.offset(), "trailer byte " + i);
        }
    }

    @Test
    void otherFormatVersionIsRefusedClearly() throws IOException {
        FilterHeader h = FilterFile.readHeader(good);
        ByteBuffer header = FilterFile.encodeHeader(h, 2);
        byte[] v2 = bytes.clone();
        header.get(v2, 0, FilterFile.HEADER_BYTES);
        Path p = damaged("v2", v2);
        FormatVersionException e = assertThrows(FormatVersionException.class, () -> FilterFile.open(p));
        assertEquals(2, e.found());
        assertEquals(FilterFile.FORMAT_VERSION, e.supported());
        assertEquals(p + " is filter format version 2; this BloomStore reads version 1 only", e.getMessage());
    }

    @Test
    void unknownKindOrHashStrategyWithAValidHeaderCrc() throws IOException {
        FilterHeader h = FilterFile.readHeader(good);
        for (int pos : new int[] {6, 7}) {
            byte[] copy = bytes.clone();
            ByteBuffer header = FilterFile.encodeHeader(h, FilterFile.FORMAT_VERSION);
            header.put(pos, (byte) 200);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(header.array(), 0, 60);
            header.putInt(60, (int) crc.getValue());
            header.get(copy, 0, FilterFile.HEADER_BYTES);
            Path p = damaged("id-" + pos, copy);
            CorruptionException e = assertCorrupt(p);
            assertEquals(pos, e.offset());
            assertTrue(e.getMessage().contains("unknown"), e.getMessage());
        }
    }

    @Test
    void textFileIsNotAFilter() throws IOException {
        Path p = dir.resolve("keys.txt");
        Files.writeString(p, "alpha\nbeta\ngamma\n");
        NotAFilterFileException e = assertThrows(NotAFilterFileException.class, () -> FilterFile.open(p));
        assertEquals(p, e.file());
        assertThrows(NotAFilterFileException.class, () -> FilterFile.readHeader(damaged("xy", new byte[] {'x', 'y'})));
    }

    @Test
    void failedOpensLeaveNoMapping() throws IOException {
        long before = MappedBitStore.openMappings();
        assertCorrupt(damaged("payload", flip(FilterFile.HEADER_BYTES + 3)));
        assertCorrupt(damaged("cut", Arrays.copyOf(bytes, 70)));
        assertEquals(before, MappedBitStore.openMappings());
    }

    private CorruptionException assertCorrupt(Path p) {
        return assertCorrupt(p, () -> FilterFile.open(p).close());
    }

    private static CorruptionException assertCorrupt(Path p, org.junit.jupiter.api.function.Executable open) {
        CorruptionException e = assertThrows(CorruptionException.class, open, p.getFileName().toString());
        assertEquals(p, e.file());
        assertTrue(e.getMessage().startsWith("corruption in " + p + " at offset " + e.offset() + ": "), e.getMessage());
        return e;
    }

    private byte[] flip(int pos) {
        byte[] copy = bytes.clone();
        copy[pos] ^= 0x10;
        return copy;
    }

    private Path damaged(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name + ".bsf");
        Files.write(p, content);
        return p;
    }

    /**
     * Found by fuzzing (a header field changed, its CRC repaired): a binary fuse length M whose
     * product with the fingerprint width overflows back to the payload's own size passed the
     * payload check, and lookups then read far past the mapping — the JVM died of a SIGSEGV.
     */
    @Test
    void aBinaryFuseLengthThatOverflowsIntoThePayloadSizeIsCorruptionNotACrash() throws IOException {
        long[] hashes = new long[1000];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = i * 0x9E3779B97F4A7C15L;
        }
        Path path = dir.resolve("fuse.bsf");
        try (MembershipFilter f = Filters.build(FilterKind.BINARY_FUSE, 9, hashes, hashes.length, Storage.HEAP)) {
            FilterFile.write(f, path);
        }
        byte[] b = Files.readAllBytes(path);
        ByteBuffer le = ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int bits = le.getInt(12);
        // m + 2^64 / bits: the same m * bits modulo 2^64, a multiple of the segment length still.
        le.putLong(16, le.getLong(16) + (1L << (64 - Integer.numberOfTrailingZeros(bits))));
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, 0, 60);
        le.putInt(60, (int) crc.getValue());
        Files.write(path, b);
        CorruptionException e = assertThrows(CorruptionException.class, () -> FilterFile.open(path));
        assertTrue(e.getMessage().contains("fingerprints"), e.getMessage());
    }
}
