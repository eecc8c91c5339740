package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TableBuilder#finish()} with a writeback executor syncs the filter sidecar there, beside
 * the table's own sync, and still returns only once both files and the directory are durable:
 * <ul>
 *   <li>the sidecar's sync is held until the table's sync starts (done one after the other, the
 *       held sync waited out its 5-second limit first: the test fails);
 *   <li>after a machine crash right after {@code finish()} both files are there, whole;
 *   <li>a failed sidecar sync fails {@code finish()}, and {@code abandon()} deletes both files.
 * </ul>
 */
class TableSidecarSyncTest {
    private static final Path DIR = Path.of("/sidecar/store");
    private static final TableOptions OPTIONS = TableOptions.defaults().withFilter(FilterKind.BLOOM, 10);

    private final ExecutorService syncer = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        syncer.shutdownNow();
    }

    @Test
    void theSidecarSyncsBesideTheTableAndBothAreDurableWhenFinishReturns() throws Exception {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(TableFixture.memoryFileSystem(DIR), 5);
        CountDownLatch tableSyncing = new CountDownLatch(1);
        AtomicBoolean sideBySide = new AtomicBoolean();
        fs.beforeSync(p -> {
            if (p.toString().endsWith(".sst")) {
                tableSyncing.countDown();
            } else if (p.toString().endsWith(".filter")) {
                try {
                    sideBySide.set(tableSyncing.await(5, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        TableBuilder builder = filled(fs, 7);
        TableMetadata t = builder.finish();
        assertTrue(sideBySide.get(), "the sidecar's sync ran while the table's did");

        FaultInjectionFileSystem after = fs.crash();
        assertEquals(t.fileSize(), after.size(DIR.resolve(TableFileNames.table(7))), "the table survived whole");
        assertEquals(t.filterFileSize(), after.size(DIR.resolve(TableFileNames.filter(7))),
                "the sidecar survived whole");
    }

    @Test
    void aFailedSidecarSyncFailsFinishAndAbandonDeletesBothFiles() throws Exception {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(TableFixture.memoryFileSystem(DIR), 5);
        fs.onlyFiles(p -> p.toString().endsWith(".filter")).failSyncsAfter(0);
        TableBuilder builder = filled(fs, 8);
        IOException e = assertThrows(IOException.class, builder::finish);
        assertTrue(e.getMessage().contains("injected fsync failure"), e.getMessage());
        builder.abandon();
        assertFalse(fs.exists(DIR.resolve(TableFileNames.table(8))), "table deleted");
        assertFalse(fs.exists(DIR.resolve(TableFileNames.filter(8))), "sidecar deleted");
    }

    private TableBuilder filled(FaultInjectionFileSystem fs, long number) throws IOException {
        TableBuilder builder = new TableBuilder(fs, DIR, number, OPTIONS, syncer, 0);
        for (TableFixture.Entry e : TableFixture.random(new Random(number), 400).entries) {
            builder.add(e.key(), e.seq(), e.type(), e.value());
        }
        return builder;
    }
}
