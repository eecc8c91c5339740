package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.ValueType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TableBuilder#addNewUserKey}, the path of tables built outside a store, writes the table
 * and filter {@link TableBuilder#add} writes for the same keys at sequence 0, byte for byte, with
 * and without compression, filters, prefix and range filters.
 */
class AddNewUserKeyTest {
    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return String.format("user-%07d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static ValueType type(int i) {
        return i % 11 == 0 ? ValueType.DELETION : ValueType.VALUE;
    }

    private static byte[] value(int i) {
        return type(i) == ValueType.DELETION ? new byte[0] : ("v" + i + ";").repeat(1 + i % 7).getBytes(StandardCharsets.UTF_8);
    }

    private void write(Path dir, TableOptions opts, boolean newUserKeys) throws IOException {
        Files.createDirectories(dir);
        TableBuilder b = new TableBuilder(LocalFileSystem.INSTANCE, dir, 7, opts);
        for (int i = 0; i < 5_000; i++) {
            if (newUserKeys) {
                b.addNewUserKey(key(i), type(i), value(i));
            } else {
                b.add(key(i), 0, type(i), value(i));
            }
        }
        b.finish();
    }

    @Test
    void writesWhatAddWrites() throws IOException {
        List<TableOptions> all = List.of(TableOptions.defaults(),
                TableOptions.defaults().withBlockSize(256).withCompression(io.bloomstore.core.Compression.NONE).withoutFilter(),
                TableOptions.defaults().withFilter(FilterKind.BLOOM, 10).withPrefixExtractor(PrefixExtractor.fixed(8))
                        .withRangeFilter(new RangeFilterOptions(16, 8)));
        for (int o = 0; o < all.size(); o++) {
            Path viaAdd = tmp.resolve(o + "-add");
            Path viaNew = tmp.resolve(o + "-new");
            write(viaAdd, all.get(o), false);
            write(viaNew, all.get(o), true);
            List<String> names;
            try (Stream<Path> files = Files.list(viaAdd)) {
                names = files.map(p -> p.getFileName().toString()).sorted().toList();
            }
            try (Stream<Path> files = Files.list(viaNew)) {
                assertEquals(names, files.map(p -> p.getFileName().toString()).sorted().toList());
            }
            for (String name : names) {
                assertArrayEquals(Files.readAllBytes(viaAdd.resolve(name)), Files.readAllBytes(viaNew.resolve(name)),
                        "options " + o + ", " + name);
            }
        }
    }

    @Test
    void takesOnlyValuesAndEmptyDeletions() throws IOException {
        TableBuilder b = new TableBuilder(LocalFileSystem.INSTANCE, tmp, 8, TableOptions.defaults());
        assertThrows(IllegalArgumentException.class, () -> b.addNewUserKey(key(1), ValueType.MERGE, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> b.addNewUserKey(key(1), ValueType.DELETION, new byte[1]));
        b.addNewUserKey(key(1), ValueType.VALUE, new byte[1]);
        b.finish();
    }
}
