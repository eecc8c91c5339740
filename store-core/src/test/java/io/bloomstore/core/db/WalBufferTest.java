package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreDirs;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code walBufferBytes}: writes that do not sync leave their WAL records in the process until the
 * buffer fills, a sync write hands them over, and so do a checkpoint and close. A copy of the
 * store's files taken while it is open is what a killed process leaves behind (the operating
 * system keeps every byte it was handed), so opening such a copy shows what a kill would lose.
 */
class WalBufferTest {
    private static final int BUFFER = 4096;

    @TempDir
    Path tmp;

    private static StoreOptions options(int walBuffer) {
        return StoreOptions.builder().walBufferBytes(walBuffer).memtableBytes(8 << 20).build();
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** The store's WAL segments, oldest first. */
    private static List<Path> walSegments(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
    }

    /** Bytes of the store's newest WAL segment on disk. */
    private static long walOnDisk(Path dir) throws IOException {
        List<Path> logs = walSegments(dir);
        return Files.size(logs.get(logs.size() - 1));
    }

    /** What a process killed now leaves: every file as the operating system holds it. */
    private static Path copyAsKilled(Path dir, Path to) throws IOException {
        return StoreDirs.copy(dir, to, StoreDirs.AS_KILLED);
    }

    @Test
    void byDefaultEveryWriteReachesTheFileBeforeItReturns() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store store = Store.open(dir, options(0))) {
            long before = walOnDisk(dir);
            for (int i = 0; i < 5; i++) {
                store.put(key(i), value(i));
                long now = walOnDisk(dir);
                assertTrue(now > before, "put " + i + " is in the file");
                before = now;
            }
            try (Store killed = Store.open(copyAsKilled(dir, tmp.resolve("killed")), options(0))) {
                for (int i = 0; i < 5; i++) {
                    assertArrayEquals(value(i), killed.get(key(i)));
                }
            }
        }
    }

    @Test
    void writesWaitInTheProcessUntilTheBufferFills() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store store = Store.open(dir, options(BUFFER))) {
            long empty = walOnDisk(dir);
            int i = 0;
            // Each record is well under 100 bytes: ten of them stay in the buffer.
            for (; i < 10; i++) {
                store.put(key(i), value(i));
                assertArrayEquals(value(i), store.get(key(i)), "the store reads its buffered write");
            }
            assertEquals(empty, walOnDisk(dir), "ten small writes are still in the process");
            try (Store killed = Store.open(copyAsKilled(dir, tmp.resolve("killed-1")), options(0))) {
                assertNull(killed.get(key(0)), "a kill now loses the buffered writes");
            }
            while (walOnDisk(dir) == empty) {
                store.put(key(i), value(i));
                i++;
                assertTrue(i < BUFFER, "the buffer was handed over once it held " + BUFFER + " bytes");
            }
            long handedOver = walOnDisk(dir) - empty;
            assertTrue(handedOver >= BUFFER, "handed over at the bound, not before: " + handedOver);
            int written = i;
            try (Store killed = Store.open(copyAsKilled(dir, tmp.resolve("killed-2")), options(0))) {
                for (int j = 0; j < written; j++) {
                    assertArrayEquals(value(j), killed.get(key(j)), "write " + j + " was handed over");
                }
            }
        }
    }

    @Test
    void aSyncWriteHandsEveryBufferedWriteOver() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store store = Store.open(dir, options(BUFFER))) {
            for (int i = 0; i < 5; i++) {
                store.put(key(i), value(i));
            }
            store.put(key(5), value(5), WriteOptions.SYNC);
            store.put(key(6), value(6));
            try (Store killed = Store.open(copyAsKilled(dir, tmp.resolve("killed")), options(0))) {
                for (int i = 0; i <= 5; i++) {
                    assertArrayEquals(value(i), killed.get(key(i)), "write " + i + " came before the sync");
                }
                assertNull(killed.get(key(6)), "the write after the sync waited in the process");
            }
        }
    }

    @Test
    void aCheckpointAndCloseHandTheBufferOver() throws IOException {
        Path dir = tmp.resolve("store");
        try (Store store = Store.open(dir, options(BUFFER))) {
            for (int i = 0; i < 5; i++) {
                store.put(key(i), value(i));
            }
            store.checkpoint(tmp.resolve("checkpoint"));
            store.put(key(5), value(5));
        }
        try (Store checkpoint = Store.open(tmp.resolve("checkpoint"), options(0))) {
            for (int i = 0; i < 5; i++) {
                assertArrayEquals(value(i), checkpoint.get(key(i)), "the checkpoint holds buffered write " + i);
            }
            assertNull(checkpoint.get(key(5)));
        }
        try (Store reopened = Store.open(dir, options(BUFFER))) {
            for (int i = 0; i <= 5; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "close handed write " + i + " over");
            }
        }
    }

    /**
     * A memtable switch hands the finished segment's buffer over before the next segment is
     * written: its seal (which syncs it) runs later on a sync thread, after the seal before it, so
     * a kill with seals held back must still find every segment whole up to the newest writes, not
     * a later segment's records after an earlier one's missing tail (a hole recovery refuses).
     */
    @Test
    void aSwitchHandsTheFinishedSegmentsBufferOver() throws Exception {
        Path dir = tmp.resolve("store");
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean hold = new java.util.concurrent.atomic.AtomicBoolean(true);
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 1).beforeSync(p -> {
            if (p.getFileName().toString().endsWith(".log") && hold.get()) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        StoreOptions options = StoreOptions.builder().walBufferBytes(BUFFER).memtableBytes(64 * 1024).bytesPerSync(0)
                .build();
        int acknowledged = 0;
        int pastSecondSwitch = -1;
        Path killed;
        try (Store store = Store.open(fs, dir, options)) {
            try {
                // The first segment's seal holds in its sync, so the second's waits without a
                // flush; two switches, then enough writes into the third segment to hand its
                // buffer over.
                while (pastSecondSwitch < 0 || acknowledged < pastSecondSwitch + 300) {
                    store.put(key(acknowledged), value(acknowledged));
                    acknowledged++;
                    if (pastSecondSwitch < 0 && walSegments(dir).size() >= 3) {
                        pastSecondSwitch = acknowledged;
                    }
                    assertTrue(acknowledged < 100_000, "two memtable switches");
                }
                killed = copyAsKilled(dir, tmp.resolve("killed"));
            } finally {
                // Before close, which waits for the seals (and before any other store needs the
                // shared flush thread, which the held seal keeps waiting).
                hold.set(false);
                release.countDown();
            }
        }
        try (Store reopened = Store.open(killed, options(0))) {
            int k = 0;
            while (k < acknowledged && reopened.get(key(k)) != null) {
                k++;
            }
            for (int i = k; i < acknowledged; i++) {
                assertNull(reopened.get(key(i)), "a prefix: write " + i + " after missing write " + k);
            }
            assertTrue(k > pastSecondSwitch, "the writes of the held segments survive: " + k + " of "
                    + acknowledged + ", the third segment began at " + pastSecondSwitch);
        }
    }

    @Test
    void theBufferIsBounded() {
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().walBufferBytes(-1).build());
        assertThrows(IllegalArgumentException.class,
                () -> StoreOptions.builder().walBufferBytes(StoreOptions.MAX_WAL_BUFFER_BYTES + 1).build());
        assertEquals(StoreOptions.MAX_WAL_BUFFER_BYTES,
                StoreOptions.builder().walBufferBytes(StoreOptions.MAX_WAL_BUFFER_BYTES).build().walBufferBytes());
        assertEquals(0, StoreOptions.defaults().walBufferBytes());
    }
}
