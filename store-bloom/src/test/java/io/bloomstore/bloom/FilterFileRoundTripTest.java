package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.Storage;

/** Build, write, close, reopen by mapping (or load into memory): the same answers. */
class FilterFileRoundTripTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} on {1}, {2} keys")
    @CsvSource({
        "BLOOM, HEAP, 10000", "BLOOM, NATIVE, 10000", "BLOCKED_BLOOM, HEAP, 10000", "BLOCKED_BLOOM, NATIVE, 10000",
        "BLOOM, HEAP, 1", "BLOOM, NATIVE, 3", "BLOCKED_BLOOM, HEAP, 1", "BLOCKED_BLOOM, NATIVE, 3"})
    void mappedAndLoadedFiltersAnswerLikeTheOneWritten(FilterKind kind, Storage storage, int keys) throws IOException {
        Path path = dir.resolve(kind + "-" + storage + ".bsf");
        try (MembershipFilter built = Filters.create(kind, keys, 0.01, storage)) {
            for (int i = 0; i < keys; i++) {
                built.add(key(i));
            }
            FilterFile.write(built, path);
            long before = MappedBitStore.openMappings();
            try (MembershipFilter mapped = FilterFile.open(path)) {
                assertEquals(before + 1, MappedBitStore.openMappings());
                assertTrue(mapped.isOffHeap());
                assertEquals(built.header(), mapped.header());
                assertEquals(built.count(), mapped.count());
                assertEquals(built.expectedFpp(), mapped.expectedFpp());
                assertSameAnswers(built, mapped, keys);
                // A mapped filter is read-only: it cannot be changed behind the file's checksum.
                assertThrows(IllegalStateException.class, () -> mapped.add(key(-1)));
            }
            assertEquals(before, MappedBitStore.openMappings(), "close must unmap");
            for (Storage into : Storage.values()) {
                try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
                     MembershipFilter loaded = FilterFile.load(path, ch, into)) {
                    assertEquals(into == Storage.NATIVE, loaded.isOffHeap());
                    assertSameAnswers(built, loaded, keys);
                }
            }
            assertEquals(built.header(), FilterFile.verify(path), "mapping must not change the file");
        }
    }

    @Test
    void rewritingAFileReplacesIt() throws IOException {
        Path path = dir.resolve("f.bsf");
        try (BloomFilter a = BloomFilter.create(100, 0.01, Storage.HEAP);
             BloomFilter b = BloomFilter.create(100, 0.01, Storage.HEAP)) {
            a.add(key(1));
            b.add(key(2));
            FilterFile.write(a, path);
            FilterFile.write(b, path);
            try (MembershipFilter f = FilterFile.open(path)) {
                assertTrue(f.mightContain(key(2)));
                assertEquals(1, f.count());
            }
        }
        assertFalse(path.resolveSibling("f.bsf.tmp").toFile().exists());
    }

    @Test
    void customHashFunctionsCanBeWrittenButNotReopened() throws IOException {
        Path path = dir.resolve("custom.bsf");
        BloomFilter f = BloomFilter.withHashFunctions(10, x -> x + 3, x -> 3 * x + 1, x -> x * x + 2);
        f.addHash(2);
        FilterFile.write(f, path);
        assertEquals(HashStrategy.CUSTOM, FilterFile.readHeader(path).hashStrategy());
        CorruptionException e = assertThrows(CorruptionException.class, () -> FilterFile.open(path));
        assertTrue(e.getMessage().contains("caller-supplied hash functions"), e.getMessage());
    }

    private static void assertSameAnswers(MembershipFilter expected, MembershipFilter actual, int keys) {
        for (int i = 0; i < keys; i++) {
            assertTrue(actual.mightContain(key(i)), "false negative for key " + i);
        }
        for (int i = 0; i < Math.max(2 * keys, 1000); i++) {
            assertEquals(expected.mightContain(key(i)), actual.mightContain(key(i)), "key " + i);
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
