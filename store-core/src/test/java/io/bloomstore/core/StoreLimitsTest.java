package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input, use after close, directories that are not stores, and the directory lock. */
class StoreLimitsTest {
    @TempDir
    Path tmp;

    private final StoreOptions small = StoreOptions.builder().maxKeyBytes(16).maxValueBytes(100).build();

    @Test
    void keysAndValuesAreChecked() throws IOException {
        try (Store store = Store.open(new MemoryFileSystem(), Path.of("/s"), small)) {
            assertThrows(IllegalArgumentException.class, () -> store.put(null, new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> store.put(new byte[0], new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> store.put(new byte[1], null));
            assertThrows(IllegalArgumentException.class, () -> store.get(new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> store.delete(null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.put(new byte[17], new byte[1]));
            assertTrue(e.getMessage().contains("maxKeyBytes"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> store.put(new byte[1], new byte[101]));
            assertTrue(e.getMessage().contains("maxValueBytes"), e.getMessage());
            WriteBatch batch = new WriteBatch().put(new byte[] {1}, new byte[] {1}).put(new byte[1], new byte[101]);
            assertThrows(IllegalArgumentException.class, () -> store.write(batch, WriteOptions.DEFAULT));
            assertEquals0(store.get(new byte[] {1}), "a rejected batch writes nothing");
            store.put(new byte[16], new byte[100]);
            assertArrayEquals(new byte[100], store.get(new byte[16]));
        }
    }

    @Test
    void memtableSizeIsBounded() {
        StoreOptions.builder().memtableBytes(StoreOptions.MAX_MEMTABLE_BYTES).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StoreOptions.builder().memtableBytes(StoreOptions.MAX_MEMTABLE_BYTES + 1).build());
        assertTrue(e.getMessage().contains("memtableBytes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().memtableBytes(8L << 30).build());
    }

    private static void assertEquals0(byte[] value, String message) {
        assertTrue(value == null, message);
    }

    @Test
    void useAfterCloseIsAnIllegalState() throws IOException {
        Store store = Store.open(new MemoryFileSystem(), Path.of("/s"), small);
        store.close();
        store.close();
        assertThrows(IllegalStateException.class, () -> store.put(new byte[] {1}, new byte[] {1}));
        assertThrows(IllegalStateException.class, () -> store.get(new byte[] {1}));
        assertThrows(IllegalStateException.class, () -> store.iterator(null, null));
        assertThrows(IllegalStateException.class, store::snapshot);
        assertThrows(IllegalStateException.class, store::flush);
    }

    @Test
    void directoryThatIsNotAStoreIsRefused() throws IOException {
        Files.writeString(tmp.resolve("notes.txt"), "hello");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Store.open(tmp, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains("not a BloomStore directory"), e.getMessage());
        assertTrue(Files.exists(tmp.resolve("notes.txt")));
    }

    @Test
    void missingDirectoryWithoutCreateIfMissingIsRefused() {
        StoreOptions noCreate = StoreOptions.builder().createIfMissing(false).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Store.open(tmp.resolve("missing"), noCreate));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertTrue(!Files.exists(tmp.resolve("missing")));
    }

    @Test
    void secondOpenerInTheSameJvmGetsLockedException() throws IOException {
        Path dir = tmp.resolve("locked");
        try (Store first = Store.open(LocalFileSystem.INSTANCE, dir, StoreOptions.defaults())) {
            first.put(new byte[] {1}, new byte[] {2});
            assertThrows(LockedException.class, () -> Store.open(dir, StoreOptions.defaults()));
            assertArrayEquals(new byte[] {2}, first.get(new byte[] {1}), "the first opener is unaffected");
        }
        try (Store again = Store.open(dir, StoreOptions.defaults())) {
            assertArrayEquals(new byte[] {2}, again.get(new byte[] {1}));
        }
    }

    @Test
    void secondOpenerOnMemoryFileSystemGetsLockedException() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        try (Store first = Store.open(fs, Path.of("/s"), StoreOptions.defaults())) {
            assertThrows(LockedException.class, () -> Store.open(fs, Path.of("/s"), StoreOptions.defaults()));
        }
    }
}
