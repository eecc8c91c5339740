package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreRepair;
import io.bloomstore.core.fs.LocalFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Repair refuses a store with keyspaces and changes nothing: it cannot tell a table's keyspace. */
class KeyspaceRepairTest {
    @TempDir
    Path dir;

    @Test
    void repairRefusesAStoreWithKeyspacesAndChangesNothing() throws Exception {
        try (Store s = Store.open(dir)) {
            s.put(s.keyspace("users"), b("a"), b("1"));
            s.put(b("b"), b("2"));
            s.flush();
        }
        List<String> before = listing();
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> StoreRepair.repair(LocalFileSystem.INSTANCE, dir, StoreOptions.builder().build()));
        assertEquals(true, e.getMessage().contains("keyspaces"), e.getMessage());
        assertEquals(before, listing(), "repair changed the directory");
        try (Store s = Store.open(dir)) {
            assertArrayEquals(b("1"), s.get(s.keyspace("users"), b("a")));
            assertArrayEquals(b("2"), s.get(b("b")));
        }
    }

    private List<String> listing() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName() + ":" + p.toFile().length()).sorted().toList();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
