package io.bloomstore.core.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalFileSystem#list}: the names of a directory's entries, a list the caller may change,
 * and the directory stream's exceptions where there is nothing to list.
 */
class LocalListingTest {
    private final LocalFileSystem fs = LocalFileSystem.INSTANCE;

    @Test
    void listsEveryEntryByNameAndTheListIsTheCallersOwn(@TempDir Path dir) throws IOException {
        List<String> expected = new ArrayList<>(List.of("000007.sst", "000007.filter", "CURRENT", "MANIFEST-000002",
                "name with spaces", "ünïcode"));
        for (String name : expected) {
            Files.writeString(dir.resolve(name), name);
        }
        Files.createDirectory(dir.resolve("sub"));
        expected.add("sub");
        List<String> listed = fs.list(dir);
        assertEquals(expected.stream().sorted().toList(), listed.stream().sorted().toList());
        listed.remove("CURRENT");
        assertEquals(expected.size() - 1, listed.size(), "the list can be changed by its caller");
        assertEquals(expected.size(), fs.list(dir).size());
    }

    @Test
    void anEmptyDirectoryListsNothing(@TempDir Path dir) throws IOException {
        assertEquals(List.of(), fs.list(dir));
    }

    @Test
    void whatIsNoDirectoryIsReportedAsTheJdkDoes(@TempDir Path dir) throws IOException {
        assertThrows(NoSuchFileException.class, () -> fs.list(dir.resolve("missing")));
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertThrows(NotDirectoryException.class, () -> fs.list(file));
    }
}
