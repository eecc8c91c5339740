package io.bloomstore.bloom.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every off-heap backend reads the same words from the same file, hold no file descriptor once a
 * mapping is made, and unmap at close (checked in /proc/self on Linux). The tests' JVM has the
 * {@code --add-opens} flags, so Chronicle is available and is the active backend.
 */
class OffHeapBackendTest {
    @TempDir
    Path dir;

    @Test
    void chronicleIsChosenWhenTheFlagsArePresent() {
        assertTrue(OffHeapBackend.CHRONICLE.isAvailable());
        assertTrue(OffHeapBackend.JDK.isAvailable());
        assertTrue(OffHeapBackend.JDK_READ.isAvailable());
        assertEquals(OffHeapBackend.CHRONICLE, OffHeapBackend.active());
        assertTrue(JdkMemory.releasesDeterministically());
    }

    @Test
    void onceChosenTheBackendIsReadyNowForEveryCaller() {
        // Before the choice, readyNow answers the JDK's mappings and starts it elsewhere (run in a
        // fresh JVM by store-core's FilterMemoryAheadTest); after it, it answers the choice itself.
        OffHeapBackend chosen = OffHeapBackend.active();
        assertEquals(chosen, OffHeapBackend.readyNow());
        OffHeapBackend.awaitChoiceAhead();
    }

    @Test
    void bothBackendsMapTheSameWords() throws IOException {
        long seed = System.nanoTime();
        System.out.println("OffHeapBackendTest seed " + seed);
        SplittableRandom rnd = new SplittableRandom(seed);
        int words = 10_000;
        long[] expected = new long[words];
        ByteBuffer b = ByteBuffer.allocate(24 + words * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.position(24);
        for (int i = 0; i < words; i++) {
            expected[i] = rnd.nextLong();
            b.putLong(expected[i]);
        }
        Path file = dir.resolve("words.bin");
        Files.write(file, b.array());
        for (OffHeapBackend backend : OffHeapBackend.values()) {
            try (MappedBitStore m = MappedBitStore.open(file, 24, words, backend)) {
                assertEquals(backend, m.backend());
                for (int i = 0; i < words; i++) {
                    assertEquals(expected[i], m.getWord(i), backend + " word " + i);
                }
                assertThrows(IllegalStateException.class, () -> m.setWord(0, 1));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(OffHeapBackend.class)
    void aMappingHoldsNoDescriptorAndIsUnmappedAtClose(OffHeapBackend backend) throws IOException {
        Path file = dir.resolve("f-" + backend + ".bin");
        Files.write(file, new byte[8 * 1024]);
        long fdsBefore = openDescriptors();
        List<MappedBitStore> open = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            open.add(MappedBitStore.open(file, 64, 1000, backend));
        }
        if (fdsBefore >= 0) {
            // This file's descriptors only: the process's count moves with other threads' files.
            assertEquals(0, openDescriptorsOf(file), "50 mappings kept descriptors open on " + file);
            // JDK_READ copies the bytes into direct memory: the file is never mapped.
            assertEquals(backend != OffHeapBackend.JDK_READ, mapsOf(file), "the file is mapped");
        }
        for (MappedBitStore m : open) {
            m.close();
            m.close();
        }
        if (fdsBefore >= 0) {
            assertFalse(mapsOf(file), "close must unmap, not wait for the garbage collector");
        }
        assertThrows(NullPointerException.class, () -> open.get(0).getWord(0));
    }

    @Test
    void jdkMappingsPastOneRegionReadAcrossTheBoundary() throws IOException {
        // A sparse file just over one region: costs no disk, exercises the 2 GiB-limit split.
        Path file = dir.resolve("sparse.bin");
        long payload = JdkMemory.REGION_BYTES + 4096L;
        long base = 64;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(base + payload);
        }
        long lastWordOfFirst = JdkMemory.REGION_BYTES / 8 - 1;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (long w : new long[] {0, lastWordOfFirst, lastWordOfFirst + 1, payload / 8 - 1}) {
                ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, ~w);
                ch.write(b, base + w * 8);
            }
        }
        try (MappedBitStore m = MappedBitStore.open(file, base, payload / 8, OffHeapBackend.JDK)) {
            for (long w : new long[] {0, lastWordOfFirst, lastWordOfFirst + 1, payload / 8 - 1}) {
                assertEquals(~w, m.getWord(w), "word " + w);
            }
            assertEquals(0, m.getWord(lastWordOfFirst - 1));
        }
    }

    @Test
    void aReadFilterThatRunsPastTheFileEndIsAnErrorAndHoldsNothing() throws IOException {
        Path file = dir.resolve("short.bin");
        Files.write(file, new byte[1000]);
        java.io.EOFException e = assertThrows(java.io.EOFException.class,
                () -> MappedBitStore.open(file, 64, 200, OffHeapBackend.JDK_READ));
        assertTrue(e.getMessage().contains("short.bin ends at 1000"), e.getMessage());
        // Only this file's descriptors: the process's count moves with other threads' files.
        if (openDescriptors() >= 0) {
            assertEquals(0, openDescriptorsOf(file), "the failed read closed its channel");
        }
        try (MappedBitStore m = MappedBitStore.open(file, 992, 1, OffHeapBackend.JDK_READ)) {
            assertEquals(0, m.getWord(0));
        }
    }

    @Test
    void jdkNativeMemoryIsZeroedAndFreed() {
        JdkMemory m = JdkMemory.allocate(4096);
        for (long off = 0; off < 4096; off += 8) {
            assertEquals(0, m.getLong(off));
        }
        m.putLong(4088, -7);
        assertEquals(-7, m.getLong(4088));
        m.free();
        m.free();
        assertThrows(NullPointerException.class, () -> m.getLong(0));
    }

    @Test
    void chronicleNativeMemoryIsZeroed() {
        ChronicleMemory m = ChronicleMemory.allocate(4096);
        for (long off = 0; off < 4096; off += 8) {
            assertEquals(0, m.getLong(off));
        }
        m.putLong(8, 9);
        assertEquals(9, m.getLong(8));
        m.free();
        assertThrows(NullPointerException.class, () -> m.getLong(0));
    }

    /** Open descriptors of this process, -1 where /proc/self/fd does not exist. */
    private static long openDescriptors() throws IOException {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        try (var s = Files.list(fds)) {
            return s.count();
        }
    }

    /** Descriptors of this process open on {@code file}. */
    private static long openDescriptorsOf(Path file) throws IOException {
        Path real = file.toRealPath();
        long n = 0;
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : s.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).equals(real)) {
                        n++;
                    }
                } catch (IOException gone) {
                    // Closed while listed (another thread's descriptor).
                }
            }
        }
        return n;
    }

    private static boolean mapsOf(Path file) throws IOException {
        String maps = Files.readString(Path.of("/proc/self/maps"));
        return maps.contains(file.toRealPath().toString());
    }
}
