package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Direct reads: a direct-read file returns the same bytes as a buffered one at any position and
 * length, and a store reading with O_DIRECT fetches its data blocks from the device — the
 * process's {@code read_bytes} in {@code /proc/self/io} (bytes the kernel fetched from storage)
 * grows by at least the bytes of the blocks read, although every page of the freshly written
 * tables is in the page cache, where buffered reads of the same store fetch (next to) nothing.
 * Skipped where the file system refuses O_DIRECT or {@code /proc/self/io} is missing.
 */
class DirectReadsTest {
    private static final Path SELF_IO = Path.of("/proc/self/io");

    @TempDir
    Path tmp;

    private static boolean directSupported(Path file) {
        try (RandomReadFile f = LocalFileSystem.INSTANCE.openReadDirect(file)) {
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    @Test
    void directReadsReturnTheBytesAtAnyPositionAndLength() throws IOException {
        long seed = System.nanoTime();
        System.out.println("DirectReadsTest seed " + seed);
        Random rnd = new Random(seed);
        byte[] content = new byte[(1 << 20) + 3 * 4096 + 123];
        rnd.nextBytes(content);
        Path file = Files.write(tmp.resolve("f.sst"), content);
        assumeTrue(directSupported(file), "the file system of " + tmp + " refuses O_DIRECT");
        try (RandomReadFile f = LocalFileSystem.INSTANCE.openReadDirect(file)) {
            assertEquals(content.length, f.size());
            for (int n = 0; n < 500; n++) {
                // Mostly block-sized reads, every 50th past the 1 MiB the per-thread buffer keeps.
                boolean huge = n % 50 == 0;
                int position = rnd.nextInt(huge ? 4096 : content.length);
                int length = huge ? (1 << 20) + rnd.nextInt(8192)
                        : 1 + rnd.nextInt(Math.min(9000, content.length - position));
                ByteBuffer dst = ByteBuffer.allocate(length);
                f.readFully(position, dst);
                for (int i = 0; i < length; i++) {
                    assertEquals(content[position + i], dst.get(i), "byte " + (position + i));
                }
            }
            ByteBuffer past = ByteBuffer.allocate(10);
            assertEquals(-1, f.read(content.length, past));
            assertEquals(3, f.read(content.length - 3, past), "a read over the end is short");
        }
    }

    @Test
    void directReadsBypassThePageCache() throws IOException {
        assumeTrue(readBytes() >= 0, "needs read_bytes in /proc/self/io");
        Path dir = tmp.resolve("store");
        StoreOptions buffered = StoreOptions.builder().blockCacheBytes(0).autoCompaction(false).build();
        int keys = 10_000;
        try (Store store = Store.open(dir, buffered)) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
        }
        Path someTable;
        try (var files = Files.list(dir)) {
            someTable = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        assumeTrue(directSupported(someTable), "the file system of " + tmp + " refuses O_DIRECT");
        long bufferedDeviceBytes = readAll(dir, buffered, keys)[1];
        long[] direct = readAll(dir, buffered.toBuilder().directReads(true).build(), keys);
        long blockBytes = direct[0];
        long directDeviceBytes = direct[1];
        System.out.printf("reading %d keys: %d bytes of data blocks; device bytes read_bytes: buffered %d,"
                + " direct %d%n", keys, blockBytes, bufferedDeviceBytes, directDeviceBytes);
        assertTrue(directDeviceBytes >= blockBytes, "direct reads fetched " + directDeviceBytes
                + " bytes from the device for " + blockBytes + " bytes of blocks");
        assertTrue(bufferedDeviceBytes < blockBytes / 2, "buffered reads of cached pages fetched "
                + bufferedDeviceBytes + " bytes from the device for " + blockBytes + " bytes of blocks");
    }

    /** Reads every key; returns the store's data-block bytes read and the process's read_bytes growth. */
    private static long[] readAll(Path dir, StoreOptions options, int keys) throws IOException {
        try (Store store = Store.open(dir, options)) {
            long before = readBytes();
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
            long device = readBytes() - before;
            return new long[] {store.stats().bytesRead(), device};
        }
    }

    /** Bytes this process caused to be fetched from storage, or -1 where not reported. */
    private static long readBytes() {
        try {
            for (String line : Files.readAllLines(SELF_IO)) {
                if (line.startsWith("read_bytes:")) {
                    return Long.parseLong(line.substring("read_bytes:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static byte[] key(int i) {
        return String.format("key%012d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[100];
        new Random(i).nextBytes(v);
        return v;
    }
}
