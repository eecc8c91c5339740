package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Acknowledged sync writes in WAL segments created while the store runs survive a power loss only
 * because the store syncs the directory after creating each segment: on the fault-injecting file
 * system, which undoes directory changes no directory sync followed, the same writes are lost when
 * directory syncs are skipped. Flushes are held back (table creation blocks), so the writes stay
 * in the WAL segments the memtable switches create.
 */
class WalDirectorySyncTest {
    private static final Path DIR = Path.of("/wal-dir-sync/store");
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(16 * 1024)
            .blockCacheBytes(0).autoCompaction(false).build();
    private static final int WRITES = 40;

    @Test
    void withDirectorySyncsNoAcknowledgedSyncWriteIsLost() throws IOException {
        assertEquals(0, lostAfterPowerLoss(false));
    }

    @Test
    void withoutDirectorySyncsAcknowledgedSyncWritesAreLost() throws IOException {
        int lost = lostAfterPowerLoss(true);
        assertTrue(lost > 0, "skipping directory syncs must lose the writes of the unsynced segments");
    }

    /** Writes {@link #WRITES} 1 KiB sync puts over three WAL segments, loses power, reopens: the number lost. */
    private static int lostAfterPowerLoss(boolean skipDirectorySyncs) throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        CountDownLatch release = new CountDownLatch(1);
        FaultInjectionFileSystem faults = new FaultInjectionFileSystem(mem, 7).beforeCreate(p -> {
            if (p.toString().endsWith(".sst")) {
                await(release);
            }
        });
        SkippingDirectorySyncs fs = new SkippingDirectorySyncs(faults);
        Store store = Store.open(fs, DIR, OPTIONS);
        fs.skip = skipDirectorySyncs;
        for (int i = 0; i < WRITES; i++) {
            store.put(key(i), value(i), WriteOptions.SYNC);
        }
        long segments = mem.list(DIR).stream().filter(n -> n.endsWith(".log")).count();
        assertEquals(3, segments, "two memtable switches made two new segments: " + mem.list(DIR));
        faults.crash();
        release.countDown();
        int lost = 0;
        try (Store reopened = Store.open(mem, DIR, OPTIONS)) {
            for (int i = 0; i < WRITES; i++) {
                byte[] v = reopened.get(key(i));
                if (v == null) {
                    lost++;
                } else {
                    assertArrayEquals(value(i), v, "key " + i);
                }
            }
        }
        System.out.println("WalDirectorySyncTest: directory syncs " + (skipDirectorySyncs ? "skipped" : "made")
                + ", " + lost + " of " + WRITES + " acknowledged sync writes lost at power loss");
        return lost;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] key(int i) {
        return String.format("key%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "v".repeat(1000)).getBytes(StandardCharsets.UTF_8);
    }

    /** Passes everything through, but drops directory syncs while {@link #skip} is set: the store as it was without them. */
    private static final class SkippingDirectorySyncs extends ForwardingFileSystem {
        volatile boolean skip;

        SkippingDirectorySyncs(FileSystem base) {
            super(base);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            if (!skip) {
                super.syncDirectory(dir);
            }
        }
    }
}
