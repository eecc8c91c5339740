package io.bloomstore.core;

import static io.bloomstore.core.SecondaryStoreTest.b;
import static io.bloomstore.core.SecondaryStoreTest.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.manifest.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SecondaryStore#catchUp()} reads on: while the primary's MANIFEST is unchanged, a catch-up
 * reads only the WAL bytes written since the last one (counted through a file system that also
 * hides the end of the newest segment, as a primary in the middle of a write leaves it), sees
 * exactly the new writes, and reads a torn record again from its start once it is whole.
 */
class SecondaryCatchUpTest {
    @TempDir
    Path tmp;

    /** Counts the bytes read from WAL segments and hides the last {@link #hidden} bytes of the newest one. */
    private static final class TailFileSystem extends ForwardingFileSystem {
        final AtomicLong walBytesRead = new AtomicLong();
        volatile long hidden;
        volatile Path newest;

        TailFileSystem() {
            super(LocalFileSystem.INSTANCE);
        }

        private static boolean isWal(Path p) {
            FileNames.Parsed parsed = FileNames.parse(p.getFileName().toString());
            return parsed != null && parsed.kind() == FileNames.Kind.WAL;
        }

        private long cut(Path p) {
            return p.equals(newest) ? hidden : 0;
        }

        @Override
        public long size(Path path) throws IOException {
            return super.size(path) - cut(path);
        }

        @Override
        public RandomReadFile openRead(Path path) throws IOException {
            RandomReadFile f = super.openRead(path);
            if (!isWal(path)) {
                return f;
            }
            long cut = cut(path);
            return new RandomReadFile() {
                @Override
                public int read(long position, ByteBuffer dst) throws IOException {
                    int n = f.read(position, dst);
                    if (n > 0) {
                        walBytesRead.addAndGet(n);
                    }
                    return n;
                }

                @Override
                public long size() throws IOException {
                    return f.size() - cut;
                }

                @Override
                public void close() throws IOException {
                    f.close();
                }
            };
        }
    }

    private static Path newestWal(Path dir) throws IOException {
        long best = -1;
        try (var s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                FileNames.Parsed parsed = FileNames.parse(p.getFileName().toString());
                if (parsed != null && parsed.kind() == FileNames.Kind.WAL) {
                    best = Math.max(best, parsed.number());
                }
            }
        }
        return FileNames.wal(dir, best);
    }

    @Test
    void readsOnlyTheNewWalBytesAndATornRecordAgain() throws IOException {
        Path dir = tmp.resolve("db");
        TailFileSystem fs = new TailFileSystem();
        try (Store primary = Store.open(dir)) {
            for (int i = 0; i < 5000; i++) {
                primary.put(b("old" + i), b("v" + i));
            }
            Path wal = newestWal(dir);
            fs.newest = wal;
            try (SecondaryStore sec = Store.openSecondary(fs, dir, tmp.resolve("scratch"), StoreOptions.defaults())) {
                assertEquals("v4999", s(sec.get(b("old4999"))));
                long seq = sec.catchUp();

                fs.walBytesRead.set(0);
                assertEquals(seq, sec.catchUp(), "nothing new");
                assertEquals(0, fs.walBytesRead.get(), "nothing new, nothing read");

                long before = Files.size(wal);
                for (int i = 0; i < 100; i++) {
                    primary.put(b("new" + i), b("n" + i));
                }
                fs.walBytesRead.set(0);
                assertEquals(seq + 100, sec.catchUp());
                assertEquals(Files.size(wal) - before, fs.walBytesRead.get(), "only the 100 writes' bytes");
                assertEquals("n99", s(sec.get(b("new99"))));
                assertEquals("v0", s(sec.get(b("old0"))));

                // One more write, of which the secondary sees all but its last 5 bytes: not there yet.
                long beforeTorn = Files.size(wal);
                primary.put(b("torn"), b("t"));
                fs.hidden = 5;
                fs.walBytesRead.set(0);
                assertEquals(seq + 100, sec.catchUp());
                assertNull(sec.get(b("torn")));
                assertEquals(Files.size(wal) - 5 - beforeTorn, fs.walBytesRead.get());

                // Whole now, with 10 more behind it: the torn record is read again from its start.
                fs.hidden = 0;
                for (int i = 0; i < 10; i++) {
                    primary.put(b("after" + i), b("a" + i));
                }
                fs.walBytesRead.set(0);
                assertEquals(seq + 111, sec.catchUp());
                assertEquals(Files.size(wal) - beforeTorn, fs.walBytesRead.get());
                assertEquals("t", s(sec.get(b("torn"))));
                assertEquals("a9", s(sec.get(b("after9"))));
                int n = 0;
                try (StoreIterator it = sec.iterator(null, null)) {
                    while (it.hasNext()) {
                        it.next();
                        n++;
                    }
                }
                assertEquals(5000 + 100 + 1 + 10, n, "each write once, nothing twice");
            }
        }
    }

    @Test
    void followsASwitchedSegmentAndRebuildsAfterAFlush() throws IOException {
        Path dir = tmp.resolve("db");
        StoreOptions small = SecondaryStoreTest.small();
        try (Store primary = Store.open(dir, small)) {
            primary.put(b("first"), b("1"));
            try (SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch"), small)) {
                Snapshot snap = sec.snapshot();
                StoreIterator it = sec.iterator(null, null);
                int round = 0;
                for (int i = 0; i < 3000; i++) {
                    primary.put(b(String.format("k%05d", i)), b("v" + i));
                    if (i % 250 == 0) {
                        sec.catchUp();
                        assertEquals("v" + i, s(sec.get(b(String.format("k%05d", i)))), "round " + round++);
                    }
                }
                primary.flush();
                sec.catchUp();
                for (int i = 0; i < 3000; i += 97) {
                    assertEquals("v" + i, s(sec.get(b(String.format("k%05d", i)))));
                }
                assertNull(sec.get(b("k00000"), ReadOptions.at(snap)), "the snapshot stays where it was");
                assertTrue(it.hasNext());
                assertEquals("first", s(it.next().key()));
                assertTrue(!it.hasNext(), "the iterator stays where it was");
                it.close();
                snap.close();
            }
        }
    }
}
