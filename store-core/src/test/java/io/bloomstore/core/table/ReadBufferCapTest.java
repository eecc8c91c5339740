package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Compression;
import io.bloomstore.core.Store;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A thread that reads a block larger than the per-thread read buffer's cap (a 6 MiB value, block
 * cache off) gets it whole through a one-off buffer and keeps a buffer of at most 1 MiB; a thread
 * whose scans decoded large blocks into scratch blocks keeps at most 1 MiB of them once the scans
 * are closed.
 */
class ReadBufferCapTest {
    @Test
    void hugeBlockDoesNotGrowTheKeptBuffer() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/read-buffer-cap/store");
        byte[] huge = new byte[6 << 20];
        Arrays.fill(huge, (byte) 7);
        huge[12345] = 1;
        StoreOptions options = StoreOptions.builder().blockCacheBytes(0).compression(Compression.NONE).build();
        try (Store store = Store.open(fs, dir, options)) {
            store.put(new byte[] {1}, huge);
            store.put(new byte[] {2}, new byte[] {2});
            store.flush();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger kept = new AtomicInteger();
            Thread reader = new Thread(() -> {
                try {
                    assertArrayEquals(huge, store.get(new byte[] {1}));
                    assertArrayEquals(new byte[] {2}, store.get(new byte[] {2}));
                    kept.set(TableBlocks.keptReadBufferCapacity());
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            reader.start();
            reader.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(kept.get() <= TableBlocks.MAX_KEPT_READ_BUFFER, "kept a buffer of " + kept.get() + " bytes");
        }
    }

    @Test
    void scansOfLargeBlocksLeaveAtMostTheCapPooled() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/read-buffer-cap/pool");
        StoreOptions options = StoreOptions.builder().blockCacheBytes(0).compression(Compression.NONE).build();
        byte[][] values = new byte[3][];
        try (Store store = Store.open(fs, dir, options)) {
            // three level-0 tables, each one block of a 700 KiB value: a scan holds three such blocks at once
            for (int i = 0; i < 3; i++) {
                values[i] = new byte[700 << 10];
                Arrays.fill(values[i], (byte) (i + 1));
                store.put(new byte[] {(byte) i}, values[i]);
                store.flush();
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[] pooled = new long[2];
            Thread reader = new Thread(() -> {
                try {
                    for (int round = 0; round < 2; round++) {
                        try (StoreIterator it = store.iterator(null, null)) {
                            for (int i = 0; i < 3; i++) {
                                KeyValue kv = it.next();
                                assertArrayEquals(new byte[] {(byte) i}, kv.key());
                                assertArrayEquals(values[i], kv.value());
                            }
                            assertTrue(!it.hasNext());
                        }
                        pooled[round] = ScratchBlock.pooledBytesOnThisThread();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            reader.start();
            reader.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            for (long p : pooled) {
                assertTrue(p > 0, "a closed scan's scratch is pooled");
                assertTrue(p <= ScratchBlock.MAX_POOLED_BYTES, "pooled " + p + " bytes");
            }
            assertEquals(pooled[0], pooled[1], "the second scan reused what the first left");
        }
    }
}
