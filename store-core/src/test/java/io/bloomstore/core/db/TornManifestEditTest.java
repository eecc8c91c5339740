package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreRepair;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A power loss while a flush appends its MANIFEST edit, in a store that was closed and reopened:
 * the torn, never-synced edit was not an acknowledged change, so the next open falls back to the
 * edit before it and replays the WAL, by itself, with every synced write. Before the fix the
 * reopen deleted the WAL segment the MANIFEST's log number named without logging an edit that moved
 * it, and the next open refused the store ("the last readable edit needs WAL segment ...").
 * Seeds 0..39 of the tear.
 */
class TornManifestEditTest {
    private static final Path DIR = Path.of("/torn-manifest");
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(8 * 1024).blockSize(512)
            .blockCacheBytes(0).autoCompaction(false).build();

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void tornFlushEditAfterAReopenFallsBackToTheEditBeforeIt() throws IOException {
        for (int seed = 0; seed < 40; seed++) {
            tearTheFirstFlushEdit(seed, false);
        }
    }

    /** The same after a repair: the MANIFEST repair writes names a WAL segment that exists. */
    @Test
    void tornFlushEditAfterARepairFallsBackToTheRepairedManifest() throws IOException {
        for (int seed = 0; seed < 20; seed++) {
            tearTheFirstFlushEdit(seed, true);
        }
    }

    private static void tearTheFirstFlushEdit(int seed, boolean repair) throws IOException {
        {
            MemoryFileSystem mem = new MemoryFileSystem();
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, seed);
            try (Store store = Store.open(fs, DIR, OPTIONS)) {
                for (int i = 0; i < 50; i++) {
                    store.put(b("first" + i), b("v" + i));
                }
                store.flush();
            }
            if (repair) {
                StoreRepair.repair(fs, DIR, OPTIONS);
            }
            AtomicReference<FaultInjectionFileSystem> after = new AtomicReference<>();
            Store store = Store.open(fs, DIR, OPTIONS);
            fs.beforeSync(p -> {
                if (p.getFileName().toString().startsWith("MANIFEST-") && after.get() == null) {
                    try {
                        after.set(fs.crashTearing());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
            int acknowledged = 0;
            try {
                for (int i = 0; i < 10_000 && after.get() == null; i++) {
                    store.put(b("second" + i), b("w" + i), WriteOptions.SYNC);
                    acknowledged = i + 1;
                }
            } catch (IOException expected) {
                // the crash came while this write waited: it was not acknowledged
            }
            try {
                store.close();
            } catch (IOException ignored) {
                // the crashed view fails every call, the close's too
            }
            assertNotNull(after.get(), "seed " + seed + ": no flush reached its MANIFEST sync");
            assertTrue(acknowledged > 0, "seed " + seed);
            FaultInjectionFileSystem healed = after.get().heal();
            try (Store reopened = Store.open(healed, DIR, OPTIONS)) {
                for (int i = 0; i < 50; i++) {
                    assertArrayEquals(b("v" + i), reopened.get(b("first" + i)), "seed " + seed + ": first" + i);
                }
                for (int i = 0; i < acknowledged; i++) {
                    assertArrayEquals(b("w" + i), reopened.get(b("second" + i)), "seed " + seed + ": second" + i);
                }
            }
        }
    }
}
