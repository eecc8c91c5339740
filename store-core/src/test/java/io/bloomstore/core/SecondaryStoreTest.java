package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.manifest.FileNames;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Store#openSecondary}: a view of a store another {@code Store} holds open for writing, its
 * catch-ups, its refusals, the primary's files left untouched, torn tails read as "not there yet",
 * and the scratch directory cleaned at close. The primary in a child JVM killed with kill -9 is
 * {@link SecondaryKillTest}; the concurrent writer and compactor is {@link SecondaryConcurrentTest}.
 */
class SecondaryStoreTest {
    @TempDir
    Path tmp;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    static StoreOptions small() {
        return StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10).build();
    }

    @Test
    void readsWhatThePrimaryWroteAndCatchesUp() throws IOException {
        Path dir = tmp.resolve("db");
        Path scratch = tmp.resolve("scratch");
        try (Store primary = Store.open(dir, small())) {
            for (int i = 0; i < 2000; i++) {
                primary.put(b("key" + i), b("v" + i));
            }
            primary.flush();
            primary.put(b("wal-only"), b("w"), WriteOptions.SYNC);
            try (SecondaryStore sec = Store.openSecondary(dir, scratch)) {
                assertEquals(dir, sec.primaryDirectory());
                assertEquals("v1234", s(sec.get(b("key1234"))));
                assertEquals("w", s(sec.get(b("wal-only"))));
                primary.put(b("later"), b("l"));
                primary.delete(b("key7"));
                assertNull(sec.get(b("later")));
                long seq = sec.catchUp();
                assertTrue(seq >= 2003, "sequence " + seq);
                assertEquals("l", s(sec.get(b("later"))));
                assertNull(sec.get(b("key7")));
                assertEquals(seq, sec.catchUp(), "nothing changed: the same view");
                primary.compact();
                sec.catchUp();
                assertEquals("v1999", s(sec.get(b("key1999"))));
                int n = 0;
                try (StoreIterator it = sec.iterator(null, null)) {
                    while (it.hasNext()) {
                        it.next();
                        n++;
                    }
                }
                assertEquals(2001, n);
            }
        }
        assertFalse(Files.exists(scratch), "the scratch directory it created is gone");
    }

    /** Range tombstones (in the MANIFEST and in the WAL) and merge operands read as on the primary. */
    @Test
    void seesRangeDeletionsAndMergesOfTheWalAndTheTables() throws IOException {
        Path dir = tmp.resolve("db");
        StoreOptions options = small().toBuilder().mergeOperator(MergeOperators.int64Add()).build();
        try (Store primary = Store.open(dir, options)) {
            for (int i = 0; i < 100; i++) {
                primary.put(b(String.format("k%03d", i)), b("v"));
            }
            primary.merge(b("count"), MergeOperators.int64(2));
            primary.deleteRange(b("k010"), b("k020"));
            primary.flush();
            primary.merge(b("count"), MergeOperators.int64(3));
            primary.deleteRange(b("k050"), b("k060"), WriteOptions.SYNC);
            try (SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch"), options)) {
                assertEquals(5, MergeOperators.int64(sec.get(b("count"))));
                assertNull(sec.get(b("k015")), "deleted by a tombstone in the MANIFEST");
                assertNull(sec.get(b("k055")), "deleted by a tombstone only in the WAL");
                assertEquals("v", s(sec.get(b("k020"))));
                int n = 0;
                try (StoreIterator it = sec.iterator(b("k"), b("l"))) {
                    while (it.hasNext()) {
                        it.next();
                        n++;
                    }
                }
                assertEquals(80, n);
                assertThrows(IllegalStateException.class, () -> sec.merge(b("count"), MergeOperators.int64(1)));
                assertThrows(IllegalStateException.class, () -> sec.deleteRange(b("a"), b("b")));
            }
        }
    }

    @Test
    void writesAreRefusedAndClosedIsClosed() throws IOException {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir)) {
            primary.put(b("a"), b("1"));
            SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch"));
            assertThrows(IllegalStateException.class, () -> sec.put(b("a"), b("2")));
            assertThrows(IllegalStateException.class, () -> sec.delete(b("a")));
            assertThrows(IllegalStateException.class, () -> sec.write(new WriteBatch().put(b("x"), b("y")),
                    WriteOptions.DEFAULT));
            assertThrows(IllegalStateException.class, sec::flush);
            assertThrows(IllegalStateException.class, sec::compact);
            assertThrows(IllegalStateException.class, () -> sec.checkpoint(tmp.resolve("cp")));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> sec.put(b("a"), b("2")));
            assertTrue(e.getMessage().contains("secondary"), e.getMessage());
            assertEquals("1", s(sec.get(b("a"))));
            sec.close();
            sec.close();
            assertThrows(IllegalStateException.class, () -> sec.get(b("a")));
            assertThrows(IllegalStateException.class, sec::catchUp);
            assertEquals("1", s(primary.get(b("a"))));
        }
    }

    @Test
    void refusesAScratchInsideTheStoreAndASecondUserOfOneScratch() throws IOException {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir)) {
            primary.put(b("a"), b("1"));
            assertThrows(IllegalArgumentException.class, () -> Store.openSecondary(dir, dir.resolve("scratch")));
            assertThrows(IllegalArgumentException.class, () -> Store.openSecondary(tmp.resolve("nothing"),
                    tmp.resolve("s")));
            try (SecondaryStore one = Store.openSecondary(dir, tmp.resolve("s"))) {
                assertThrows(LockedException.class, () -> Store.openSecondary(dir, tmp.resolve("s")));
                assertEquals("1", s(one.get(b("a"))));
            }
        }
    }

    @Test
    void iteratorsAndSnapshotsKeepTheirViewAcrossCatchUps() throws IOException {
        Path dir = tmp.resolve("db");
        Path scratch = tmp.resolve("scratch");
        Files.createDirectories(scratch);
        try (Store primary = Store.open(dir, small())) {
            for (int i = 0; i < 500; i++) {
                primary.put(b(String.format("k%04d", i)), b("old"));
            }
            primary.flush();
            SecondaryStore sec = Store.openSecondary(dir, scratch);
            Snapshot snap = sec.snapshot();
            StoreIterator it = sec.iterator(null, null);
            for (int i = 0; i < 500; i++) {
                primary.put(b(String.format("k%04d", i)), b("new"));
            }
            primary.compact();
            primary.awaitCompactions();
            sec.catchUp();
            sec.catchUp();
            assertEquals("new", s(sec.get(b("k0001"))));
            assertEquals("old", s(sec.get(b("k0001"), ReadOptions.at(snap))));
            int n = 0;
            while (it.hasNext()) {
                assertEquals("old", s(it.next().value()));
                n++;
            }
            assertEquals(500, n);
            sec.close();
            assertEquals("old", s(it.hasNext() ? null : b("old")));
            it.close();
            assertEquals(1, countEntries(scratch), "the snapshot's view stays until it is closed");
            snap.close();
            assertEquals(0, countEntries(scratch), "everything it put in the scratch directory is gone");
            assertTrue(Files.isDirectory(scratch), "a scratch directory it did not create stays");
        }
    }

    private static int countEntries(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return (int) s.count();
        }
    }

    @Test
    void neverChangesAnythingInThePrimarysDirectory() throws Exception {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir, small())) {
            for (int i = 0; i < 3000; i++) {
                primary.put(b("key" + i), b("value" + i));
            }
            primary.put(b("synced"), b("s"), WriteOptions.SYNC);
            primary.awaitCompactions();
            Map<String, String> before = quietListing(dir);
            GuardedFileSystem guarded = new GuardedFileSystem(dir);
            try (SecondaryStore sec = Store.openSecondary(guarded, dir, tmp.resolve("scratch"), small())) {
                assertEquals("s", s(sec.get(b("synced"))));
                sec.catchUp();
                try (StoreIterator it = sec.iterator(null, null)) {
                    while (it.hasNext()) {
                        it.next();
                    }
                }
                sec.stats();
            }
            assertEquals(before, listing(dir), "names, sizes, modification times and contents as before");
            assertTrue(guarded.reads > 0);
            for (int i = 0; i < 3000; i++) {
                primary.put(b("more" + i), b("value" + i));
            }
            primary.compact();
            try (SecondaryStore sec = Store.openSecondary(guarded, dir, tmp.resolve("scratch"), small())) {
                assertEquals("value2999", s(sec.get(b("more2999"))));
            }
        }
    }

    /**
     * {@link #listing} once the primary's background work (a WAL segment or replaced table deleted
     * shortly after a flush or compaction) has left it alone for 100 ms.
     */
    static Map<String, String> quietListing(Path dir) throws IOException, InterruptedException {
        Map<String, String> last = null;
        for (int i = 0; i < 100; i++) {
            Map<String, String> now;
            try {
                now = listing(dir);
            } catch (java.nio.file.NoSuchFileException e) {
                now = null;
            }
            if (now != null && now.equals(last)) {
                return now;
            }
            last = now;
            Thread.sleep(100);
        }
        throw new AssertionError("the primary's directory kept changing: " + last);
    }

    /** Each file's size, modification time and content hash, by name. */
    static Map<String, String> listing(Path dir) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (var s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                m.put(p.getFileName().toString(), Files.size(p) + " " + Files.getLastModifiedTime(p) + " "
                        + java.util.Arrays.hashCode(Files.readAllBytes(p)));
            }
        }
        return m;
    }

    /** A file system on which anything but reading the primary's directory fails the test. */
    static final class GuardedFileSystem extends ForwardingFileSystem {
        private final Path primary;
        volatile int reads;

        GuardedFileSystem(Path primary) {
            super(LocalFileSystem.INSTANCE);
            this.primary = primary.toAbsolutePath().normalize();
        }

        private void check(Path p, String op) {
            if (p.toAbsolutePath().normalize().startsWith(primary)) {
                throw new AssertionError("a secondary must not " + op + " " + p);
            }
        }

        @Override
        public io.bloomstore.core.fs.RandomReadFile openRead(Path path) throws IOException {
            reads++;
            return super.openRead(path);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            check(path, "create");
            return super.create(path);
        }

        @Override
        public void delete(Path path) throws IOException {
            check(path, "delete");
            super.delete(path);
        }

        @Override
        public void rename(Path source, Path target) throws IOException {
            check(source, "rename");
            check(target, "rename to");
            super.rename(source, target);
        }

        @Override
        public void createDirectories(Path dir) throws IOException {
            check(dir, "create directory");
            super.createDirectories(dir);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            check(dir, "sync");
            super.syncDirectory(dir);
        }

        @Override
        public Closeable lock(Path path) throws IOException {
            check(path, "lock");
            return super.lock(path);
        }

        @Override
        public Closeable lockShared(Path path) throws IOException {
            check(path, "lock");
            return super.lockShared(path);
        }

        @Override
        public Closeable lockForUpdate(Path path) throws IOException {
            check(path, "lock");
            return super.lockForUpdate(path);
        }

        @Override
        public boolean linkOrCopy(Path existing, Path link) throws IOException {
            check(link, "link into");
            return super.linkOrCopy(existing, link);
        }
    }

    @Test
    void aTornLastWalRecordAndManifestEditAreNotThereYet() throws IOException {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir, small())) {
            for (int i = 0; i < 1000; i++) {
                primary.put(b("key" + i), b("v" + i));
            }
            primary.flush();
            primary.put(b("last"), b("x"), WriteOptions.SYNC);
            // What a primary in the middle of a write leaves: half a record at the end of the WAL
            // and of the MANIFEST (appended here, as the primary's next bytes would be).
            Path wal = newest(dir, FileNames.Kind.WAL);
            Path manifest = dir.resolve(Files.readString(dir.resolve(FileNames.CURRENT)).trim());
            byte[] half = {(byte) 0x9c, 0x11, 0x22, 0x33, 40, 0, 1, 7, 7, 7};
            Files.write(wal, half, StandardOpenOption.APPEND);
            Files.write(manifest, half, StandardOpenOption.APPEND);
            try (SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch"))) {
                assertEquals("x", s(sec.get(b("last"))));
                assertEquals("v999", s(sec.get(b("key999"))));
                assertNull(sec.get(b("absent")));
                sec.catchUp();
                assertEquals("x", s(sec.get(b("last"))));
            }
        }
    }

    private static Path newest(Path dir, FileNames.Kind kind) throws IOException {
        List<Long> numbers = new ArrayList<>();
        try (var s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                FileNames.Parsed parsed = FileNames.parse(p.getFileName().toString());
                if (parsed != null && parsed.kind() == kind) {
                    numbers.add(parsed.number());
                }
            }
        }
        long n = java.util.Collections.max(numbers);
        return kind == FileNames.Kind.WAL ? FileNames.wal(dir, n) : FileNames.manifest(dir, n);
    }

    @Test
    void opensAStoreNobodyHoldsAndLeavesItOpenable() throws IOException {
        Path dir = tmp.resolve("db");
        try (Store primary = Store.open(dir)) {
            primary.put(b("a"), b("1"));
        }
        try (SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch"))) {
            assertArrayEquals(b("1"), sec.get(b("a")));
            try (Store rw = Store.open(dir)) {
                rw.put(b("b"), b("2"));
                sec.catchUp();
                assertArrayEquals(b("2"), sec.get(b("b")));
            }
        }
    }
}
