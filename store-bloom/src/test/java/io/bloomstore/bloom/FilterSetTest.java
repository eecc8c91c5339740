package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.Storage;

/**
 * Filter sets (filter format version 2): round trip of a key and a prefix section, version-1
 * files opening as a set of one key section, every flipped byte caught, another version refused.
 */
class FilterSetTest {
    private static final byte[] DESCRIPTOR = "fixed:3".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    private Path file;
    private byte[] bytes;

    @BeforeEach
    void writeSet() throws IOException {
        file = dir.resolve("set.filter");
        long[] keys = hashes("key-", 700);
        long[] prefixes = hashes("pre-", 70);
        try (MembershipFilter k = Filters.build(FilterKind.BLOOM, 10, keys, keys.length, Storage.HEAP);
             MembershipFilter p = Filters.build(FilterKind.BLOCKED_BLOOM, 10, prefixes, prefixes.length, Storage.HEAP);
             FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long written = FilterSet.write(List.of(new FilterSet.Spec(FilterSet.Role.KEY, new byte[0], k),
                    new FilterSet.Spec(FilterSet.Role.PREFIX, DESCRIPTOR, p)), ch);
            assertEquals(written, ch.size());
        }
        bytes = Files.readAllBytes(file);
    }

    private static long[] hashes(String stem, int n) {
        long[] h = new long[n];
        for (int i = 0; i < n; i++) {
            h[i] = Filters.hash((stem + i).getBytes(StandardCharsets.UTF_8));
        }
        return h;
    }

    @Test
    void roundTripMapsBothSectionsAligned() throws IOException {
        long before = MappedBitStore.openMappings();
        try (FilterSet set = FilterSet.open(file, true)) {
            assertEquals(2, set.version());
            FilterSet.Section k = set.section(FilterSet.Role.KEY);
            FilterSet.Section p = set.section(FilterSet.Role.PREFIX);
            assertNull(set.section(FilterSet.Role.RANGE));
            assertEquals(0, k.offset() % 64);
            assertEquals(0, p.offset() % 64);
            assertArrayEquals(DESCRIPTOR, p.descriptor());
            assertEquals(FilterKind.BLOOM, k.filter().kind());
            assertEquals(FilterKind.BLOCKED_BLOOM, p.filter().kind());
            assertEquals(700, k.filter().header().n());
            assertEquals(70, p.filter().header().n());
            for (long h : hashes("key-", 700)) {
                assertTrue(k.filter().mightContainHash(h), "no false negative in the key section");
            }
            for (long h : hashes("pre-", 70)) {
                assertTrue(p.filter().mightContainHash(h), "no false negative in the prefix section");
            }
            int falsePrefixes = 0;
            for (long h : hashes("absent-", 10_000)) {
                falsePrefixes += p.filter().mightContainHash(h) ? 1 : 0;
            }
            // 10 bits per prefix: about 1% in theory; 3% leaves room for a small blocked filter.
            assertTrue(falsePrefixes < 300, "prefix section FPR " + falsePrefixes + "/10000");
            assertTrue(MappedBitStore.openMappings() > before);
        }
        assertEquals(before, MappedBitStore.openMappings(), "closing the set unmaps every section");
        assertEquals(2, FilterSet.verify(file).size());
    }

    @Test
    void loadReadsTheSameFilters() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
             FilterSet set = FilterSet.load(file, ch, Storage.NATIVE)) {
            for (long h : hashes("pre-", 70)) {
                assertTrue(set.section(FilterSet.Role.PREFIX).filter().mightContainHash(h));
            }
        }
    }

    @Test
    void aVersionOneFileOpensAsOneKeySection() throws IOException {
        Path v1 = dir.resolve("v1.filter");
        long[] keys = hashes("key-", 100);
        try (MembershipFilter k = Filters.build(FilterKind.BLOOM, 10, keys, keys.length, Storage.HEAP)) {
            FilterFile.write(k, v1);
        }
        try (FilterSet set = FilterSet.open(v1, false)) {
            assertEquals(1, set.version());
            assertEquals(1, set.sections().size());
            assertEquals(Files.size(v1), set.section(FilterSet.Role.KEY).length());
            assertNull(set.section(FilterSet.Role.PREFIX));
            for (long h : keys) {
                assertTrue(set.section(FilterSet.Role.KEY).filter().mightContainHash(h));
            }
        }
    }

    @Test
    void everyFlippedByteIsCaught() throws IOException {
        for (int pos = 0; pos < bytes.length; pos++) {
            byte[] damaged = bytes.clone();
            damaged[pos] ^= 0x5A;
            Path p = dir.resolve("flip-" + pos);
            Files.write(p, damaged);
            try {
                FilterSet.verify(p);
                fail("flipped byte at " + pos + " of " + bytes.length + " not caught");
            } catch (NotAFilterFileException e) {
                assertTrue(pos < 4, "only the magic makes a file not a filter file: byte " + pos);
            } catch (CorruptionException e) {
                assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
            }
            Files.delete(p);
        }
    }

    @Test
    void truncatedOrLongerIsCorrupt() throws IOException {
        for (int length : new int[] {70, 200, bytes.length / 2, bytes.length - 1}) {
            Path p = dir.resolve("cut-" + length);
            Files.write(p, Arrays.copyOf(bytes, length));
            assertThrows(CorruptionException.class, () -> FilterSet.open(p, false), "cut at " + length);
        }
        Path longer = dir.resolve("longer");
        Files.write(longer, Arrays.copyOf(bytes, bytes.length + 8));
        assertThrows(CorruptionException.class, () -> FilterSet.open(longer, false));
    }

    @Test
    void anotherWellFormedVersionIsAFormatVersionError() throws IOException {
        byte[] v3 = bytes.clone();
        ByteBuffer b = ByteBuffer.wrap(v3).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(4, (short) 3);
        CRC32C crc = new CRC32C();
        crc.update(v3, 0, 60);
        b.putInt(60, (int) crc.getValue());
        Path p = dir.resolve("v3");
        Files.write(p, v3);
        FormatVersionException e = assertThrows(FormatVersionException.class, () -> FilterSet.open(p, false));
        assertEquals(3, e.found());
        assertEquals(FilterSet.FORMAT_VERSION, e.supported());
    }

    @Test
    void aVersionOneReaderRefusesASetAsAnotherVersion() {
        FormatVersionException e = assertThrows(FormatVersionException.class, () -> FilterFile.open(file));
        assertEquals(2, e.found());
    }

    @Test
    void specsAreChecked() throws IOException {
        long[] keys = hashes("k", 10);
        try (MembershipFilter k = Filters.build(FilterKind.BLOOM, 10, keys, keys.length, Storage.HEAP);
             FileChannel ch = FileChannel.open(dir.resolve("bad"), StandardOpenOption.CREATE_NEW,
                     StandardOpenOption.WRITE)) {
            FilterSet.Spec s = new FilterSet.Spec(FilterSet.Role.KEY, new byte[0], k);
            assertThrows(IllegalArgumentException.class, () -> FilterSet.write(List.of(s, s), ch));
            assertThrows(IllegalArgumentException.class, () -> FilterSet.write(List.of(), ch));
            assertThrows(IllegalArgumentException.class,
                    () -> new FilterSet.Spec(FilterSet.Role.PREFIX, new byte[256], k));
        }
    }

    @Test
    void roleIdsAreWrittenToDiskAndNeverChange() {
        assertEquals(1, FilterSet.Role.KEY.id());
        assertEquals(2, FilterSet.Role.PREFIX.id());
        assertEquals(3, FilterSet.Role.RANGE.id());
    }
}
