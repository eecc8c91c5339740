package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A crash while a new store is being created must not leave a directory that can never be opened. */
class InterruptedCreationTest {
    @TempDir
    Path tmp;

    @Test
    void leftoversOfAnInterruptedCreationAreReplacedByANewStore() throws Exception {
        Path dir = tmp.resolve("db");
        Files.createDirectories(dir);
        Files.write(dir.resolve("LOCK"), new byte[0]);
        Files.write(dir.resolve("MANIFEST-000001"), new byte[] {1, 2, 3});
        Files.writeString(dir.resolve("CURRENT.tmp"), "MANIFEST-0000");
        try (Store store = Store.open(dir)) {
            assertNull(store.get(bytes("k")));
            store.put(bytes("k"), bytes("v"));
        }
        try (Store store = Store.open(dir)) {
            assertArrayEquals(bytes("v"), store.get(bytes("k")));
        }
    }

    @Test
    void otherFilesStillMakeADirectoryThatIsNotAStore() throws Exception {
        Path dir = tmp.resolve("other");
        Files.createDirectories(dir);
        Files.write(dir.resolve("MANIFEST-000001"), new byte[] {1});
        Files.writeString(dir.resolve("notes.txt"), "mine");
        assertThrows(IllegalArgumentException.class, () -> Store.open(dir).close());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
