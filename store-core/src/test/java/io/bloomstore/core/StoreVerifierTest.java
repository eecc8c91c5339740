package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.VerifyReport.Problem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreVerifier}: a clean store reads clean with every file listed; damage in each kind of
 * file is an error naming the file (and offset where there is one); leftovers are warnings.
 */
class StoreVerifierTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(8 * 1024).blockSize(512).build();

    @TempDir
    Path dir;

    @BeforeEach
    void fill() throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            for (int i = 0; i < 600; i++) {
                store.put(key(i), key(i));
            }
            store.flush();
            store.put(key(1000), key(1000));
        }
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private List<Path> files(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    @Test
    void cleanStoreChecksEveryFile() throws IOException {
        VerifyReport r = StoreVerifier.verify(dir);
        assertTrue(r.clean(), r.problems().toString());
        assertTrue(r.problems().isEmpty(), r.problems().toString());
        List<String> kinds = r.checked().stream().map(VerifyReport.CheckedFile::kind).toList();
        assertEquals(1, kinds.stream().filter("CURRENT"::equals).count());
        assertEquals(1, kinds.stream().filter("MANIFEST"::equals).count());
        assertEquals(files(".sst").size(), kinds.stream().filter("TABLE"::equals).count());
        assertEquals(files(".filter").size(), kinds.stream().filter("FILTER"::equals).count());
        assertEquals(files(".log").size(), kinds.stream().filter("WAL"::equals).count());
        assertTrue(files(".sst").size() >= 2, "several tables");
    }

    @Test
    void flippedDataByteIsAnErrorWithItsOffset() throws IOException {
        Path sst = files(".sst").get(0);
        byte[] bytes = Files.readAllBytes(sst);
        bytes[10] ^= 1;
        Files.write(sst, bytes);
        VerifyReport r = StoreVerifier.verify(dir);
        assertFalse(r.clean());
        Problem p = r.errors().get(0);
        assertEquals(sst, p.file());
        assertTrue(p.offset() >= 0 && p.message().contains("block at 0"), p.toString());
    }

    @Test
    void flippedFilterPayloadByteIsAnError() throws IOException {
        Path filter = files(".filter").get(0);
        byte[] bytes = Files.readAllBytes(filter);
        bytes[100] ^= 0x10;
        Files.write(filter, bytes);
        VerifyReport r = StoreVerifier.verify(dir);
        assertFalse(r.clean());
        assertEquals(filter, r.errors().get(0).file());
        assertTrue(r.errors().get(0).message().contains("payload"), r.errors().get(0).message());
    }

    @Test
    void missingOrResizedFilesAreErrors() throws IOException {
        Files.delete(files(".filter").get(0));
        Path sst = files(".sst").get(1);
        Files.write(sst, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
        VerifyReport r = StoreVerifier.verify(dir);
        assertEquals(2, r.errors().size(), r.problems().toString());
        assertTrue(r.errors().stream().anyMatch(p -> p.message().startsWith("missing")), r.errors().toString());
        assertTrue(r.errors().stream().anyMatch(p -> p.file().equals(sst)
                && p.message().contains("bytes; the manifest records")), r.errors().toString());
    }

    @Test
    void damagedWalManifestAndCurrentAreErrors() throws IOException {
        Path wal = files(".log").get(0);
        byte[] bytes = Files.readAllBytes(wal);
        bytes[25] ^= 1;
        bytes = java.util.Arrays.copyOf(bytes, bytes.length + 40);
        bytes[bytes.length - 1] = 9;
        Files.write(wal, bytes);
        VerifyReport r = StoreVerifier.verify(dir);
        assertEquals(wal, r.errors().get(0).file());
        assertEquals(19, r.errors().get(0).offset(), "the record after the 19-byte header record");

        Path manifest = files("").stream().filter(p -> p.getFileName().toString().startsWith("MANIFEST")).findFirst()
                .orElseThrow();
        byte[] m = Files.readAllBytes(manifest);
        m[0] ^= 1;
        Files.write(manifest, m);
        r = StoreVerifier.verify(dir);
        assertTrue(r.errors().stream().anyMatch(p -> p.file().equals(manifest) && p.offset() == 0), r.errors().toString());

        Files.writeString(dir.resolve("CURRENT"), "MANIFEST-999999\n");
        r = StoreVerifier.verify(dir);
        assertTrue(r.errors().stream().anyMatch(p -> p.file().getFileName().toString().equals("CURRENT")),
                r.errors().toString());
    }

    @Test
    void leftoversAreWarnings() throws IOException {
        Files.copy(files(".sst").get(0), dir.resolve("000999.sst"));
        Path wal = files(".log").get(0);
        byte[] bytes = Files.readAllBytes(wal);
        Files.write(wal, java.util.Arrays.copyOf(bytes, bytes.length - 3));
        VerifyReport r = StoreVerifier.verify(dir);
        assertTrue(r.clean(), r.errors().toString());
        assertEquals(2, r.warnings().size(), r.warnings().toString());
        assertTrue(r.warnings().stream().anyMatch(p -> p.message().contains("not referenced")));
        assertTrue(r.warnings().stream().anyMatch(p -> p.message().contains("torn final record")));
    }

    @Test
    void openStoreAndNonStoreAreRefused(@TempDir Path empty) throws IOException {
        try (Store store = Store.open(dir, OPTIONS)) {
            assertThrows(LockedException.class, () -> StoreVerifier.verify(dir));
        }
        assertThrows(IllegalArgumentException.class, () -> StoreVerifier.verify(empty));
    }
}
