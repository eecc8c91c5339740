package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the keyspace fields of the MANIFEST (tag 10 scopes a section to a keyspace, 11 creates one,
 * 12 drops one, 13 the next keyspace number) and of the WAL (the 0x80 flag and keyspace number on
 * an operation's type): {@code testdata/golden/manifest/keyspaces/MANIFEST-000001} was written by
 * {@link #write} and must recover to the same keyspaces and be byte-identical to what this build
 * writes. Regenerate with {@code -Dbloomstore.regenerateGolden=true} after a deliberate format
 * change (documented in docs/format/manifest.md and wal.md).
 */
class KeyspaceManifestGoldenTest {
    static final Path GOLDEN_DIR = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden/manifest/keyspaces");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<VersionEdit> edits() {
        FileMetaData d4 = new FileMetaData(4, 4096, 1200, b("apple"), b("melon"), 100, 1, 100);
        FileMetaData u5 = new FileMetaData(5, 2048, 600, b("alice"), b("bob"), 2, 101, 102);
        FileMetaData o6 = new FileMetaData(6, 2048, 600, b("o1"), b("o9"), 9, 103, 111);
        return List.of(
                new VersionEdit().setLogNumber(0).setNextFileNumber(2).setLastSequence(0),
                new VersionEdit().createKeyspace(1, "users").createKeyspace(2, "orders").setNextKeyspaceId(3)
                        .setNextFileNumber(3),
                // One flush at open: a table per keyspace and the log number, in one record.
                new VersionEdit().setLogNumber(7).setNextFileNumber(8).setLastSequence(111).addFile(0, d4)
                        .addSection(new VersionEdit().setKeyspace(1).addFile(0, u5))
                        .addSection(new VersionEdit().setKeyspace(2).addFile(0, o6)),
                new VersionEdit().setKeyspace(2).dropKeyspace().deleteFile(0, 6).setNextFileNumber(9));
    }

    static byte[] write() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path path = Path.of("/g/MANIFEST-000001");
        fs.createDirectories(path.getParent());
        try (LogWriter w = new LogWriter(fs.create(path), LogFormat.MANIFEST_MAGIC)) {
            for (VersionEdit e : edits()) {
                w.addRecord(e.encode());
            }
        }
        return fs.contents(path);
    }

    @Test
    void keyspaceFieldsArePinned() {
        HexFormat hex = HexFormat.of();
        // tag 13 next keyspace 2, tag 11 keyspace 1 "users"
        assertEquals("0d02" + "0b01" + "057573657273",
                hex.formatHex(new VersionEdit().createKeyspace(1, "users").setNextKeyspaceId(2).encode()));
        // tag 10 keyspace 3, tag 12 drop, tag 4 level 0 table 9
        assertEquals("0a03" + "0c" + "040009",
                hex.formatHex(new VersionEdit().setKeyspace(3).dropKeyspace().deleteFile(0, 9).encode()));
        // tag 10 keyspace 2, tag 14: it needs no WAL segment below 9
        assertEquals("0a02" + "0e09", hex.formatHex(new VersionEdit().setKeyspace(2).setKeyspaceLogNumber(9).encode()));
        // the default section's log number, then tag 10 keyspace 1 and its table deletion
        assertEquals("0107" + "0a01" + "040105", hex.formatHex(new VersionEdit().setLogNumber(7)
                .addSection(new VersionEdit().setKeyspace(1).deleteFile(1, 5)).encode()));
    }

    @Test
    void walOperationsCarryTheirKeyspace() throws Exception {
        Keyspace users = new Keyspace() {
            @Override
            public String name() {
                return "users";
            }

            @Override
            public int id() {
                return 1;
            }
        };
        byte[] record = BatchCodec.encode(new WriteBatch().put(b("d"), b("0")).put(users, b("k"), b("v")), 5);
        // sequence 5, count 2, a default put of d = 0, then type 0x81 keyspace 1: put k = v
        assertEquals("0500000000000000" + "02000000" + "01" + "0164" + "0130" + "81" + "01" + "016b" + "0176",
                HexFormat.of().formatHex(record));
        List<String> seen = new ArrayList<>();
        BatchCodec.decode(record, Path.of("/x.log"), 0, new BatchCodec.EntryHandler() {
            @Override
            public void entry(byte[] key, long sequence, ValueType type, byte[] value) {
                seen.add("0:" + new String(key, StandardCharsets.UTF_8) + "@" + sequence);
            }

            @Override
            public void entry(int keyspace, byte[] key, long sequence, ValueType type, byte[] value) {
                seen.add(keyspace + ":" + new String(key, StandardCharsets.UTF_8) + "@" + sequence);
            }
        });
        assertEquals(List.of("0:d@5", "1:k@6"), seen);
        // A reader of the default keyspace alone passes over the other keyspace's operation.
        List<String> defaultOnly = new ArrayList<>();
        BatchCodec.decode(record, Path.of("/x.log"), 0, (k, s, t, v) -> defaultOnly.add(new String(k,
                StandardCharsets.UTF_8)));
        assertEquals(List.of("d"), defaultOnly);
        byte[] zero = HexFormat.of().parseHex("0500000000000000" + "01000000" + "81" + "00" + "016b" + "0176");
        assertThrows(CorruptionException.class, () -> BatchCodec.decode(zero, Path.of("/x.log"), 0,
                (k, s, t, v) -> { }));
    }

    @Test
    void goldenManifestRecoversTheKeyspaces() throws IOException {
        byte[] expected = write();
        Path manifest = GOLDEN_DIR.resolve("MANIFEST-000001");
        if (Boolean.getBoolean("bloomstore.regenerateGolden")) {
            Files.createDirectories(GOLDEN_DIR);
            Files.write(manifest, expected);
            Files.writeString(GOLDEN_DIR.resolve("CURRENT"), "MANIFEST-000001\n");
        }
        assertTrue(Files.exists(manifest), manifest + " missing; run with -Dbloomstore.regenerateGolden=true");
        byte[] golden = Files.readAllBytes(manifest);
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/r");
        fs.createDirectories(dir);
        fs.setContents(dir.resolve("MANIFEST-000001"), golden);
        fs.setContents(dir.resolve("CURRENT"), Files.readAllBytes(GOLDEN_DIR.resolve("CURRENT")));
        for (int round = 0; round < 2; round++) {
            // The second round reads the MANIFEST the first recovery wrote (its full state).
            try (VersionSet vs = VersionSet.recover(fs, dir)) {
                assertEquals(List.of(4L), numbers(vs.current()));
                assertEquals(1, vs.keyspaces().size());
                assertEquals("users", vs.keyspaces().get(1).name());
                assertEquals(List.of(5L), numbers(vs.version(1)));
                assertEquals(null, vs.version(2), "orders was dropped");
                assertEquals(3, vs.nextKeyspaceId(), "a dropped keyspace's number is not used again");
                assertEquals(7, vs.logNumber());
                assertEquals(List.of(4L, 5L), vs.allLiveFiles().stream().map(FileMetaData::fileNumber).sorted()
                        .toList());
            }
        }
        assertArrayEquals(expected, golden, "this build writes keyspaces differently from the golden file");
    }

    private static List<Long> numbers(Version v) {
        return v.allFiles().stream().map(FileMetaData::fileNumber).toList();
    }

    @Test
    void malformedKeyspaceEditsAreCorruption() {
        HexFormat hex = HexFormat.of();
        Path m = Path.of("/MANIFEST-000001");
        // drop without a keyspace (the default one)
        assertThrows(CorruptionException.class, () -> VersionEdit.decode(hex.parseHex("0c"), m, 0));
        // creation of keyspace 0
        assertThrows(CorruptionException.class, () -> VersionEdit.decode(hex.parseHex("0b00" + "0161"), m, 0));
        // a store-wide field inside a keyspace's section
        assertThrows(CorruptionException.class, () -> VersionEdit.decode(hex.parseHex("0107" + "0a01" + "0107"), m,
                0));
    }
}
