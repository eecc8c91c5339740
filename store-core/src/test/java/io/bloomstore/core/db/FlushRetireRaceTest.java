package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.ForwardingWritableFile;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A flush logs its level-0 table, then retires its memtable; another thread that installs the
 * current version in between (a compaction or an ingestion finishing) must leave that memtable out
 * of the view, or a scan meets every merge operand of it twice (once in the memtable, once merged
 * in its table) and a counter reads too high, then drops back: what {@code ConcurrentMergeTest}
 * caught about one run in ten. Here the flush is held in its MANIFEST sync, the test takes the
 * store's mutex, lets the edit land, and installs the current version itself, as a compaction would.
 */
class FlushRetireRaceTest {
    private static final Path DIR = Path.of("/flush-retire/store");
    private static final int OPERANDS = 50;

    private final AtomicBoolean armed = new AtomicBoolean();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void letGo() {
        release.countDown();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code base} whose MANIFEST's next sync, once armed, waits for {@link #release}. */
    private FileSystem holdingManifestSync(FileSystem base) {
        return new ForwardingFileSystem(base) {
            @Override
            public WritableFile create(Path path) throws IOException {
                WritableFile f = super.create(path);
                if (!path.getFileName().toString().startsWith("MANIFEST")) {
                    return f;
                }
                return new ForwardingWritableFile(f) {
                    @Override
                    public void sync() throws IOException {
                        if (armed.compareAndSet(true, false)) {
                            entered.countDown();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        super.sync();
                    }
                };
            }
        };
    }

    @Test
    void anInstallBetweenAFlushsEditAndItsRetireLeavesTheMemtableOut() throws Exception {
        StoreOptions options = StoreOptions.builder().mergeOperator(MergeOperators.int64Add()).autoCompaction(false)
                .build();
        try (Store store = Store.open(holdingManifestSync(new MemoryFileSystem()), DIR, options)) {
            for (int i = 0; i < OPERANDS; i++) {
                store.merge(b("c"), MergeOperators.int64(1));
            }
            DbState db = ((DbImpl) store).state();
            armed.set(true);
            CompletableFuture<Void> flush = CompletableFuture.runAsync(() -> {
                try {
                    store.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the flush reached its MANIFEST sync");
            db.mutex().lock();
            try {
                release.countDown();
                // The edit lands without the mutex; the flush then waits for it to retire its memtable.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (db.versions.current().files(0).isEmpty()) {
                    assertTrue(System.nanoTime() < deadline, "the flush's edit was applied");
                    Thread.onSpinWait();
                }
                assertEquals(1, db.view.immutables().size(), "the flushed memtable is not retired yet");
                // What a compaction finishing now does: the current version with the view's memtables.
                db.installVersion(db.versions.current(), db.view.mem(), db.view.immutables());
                assertEquals(0, db.view.immutables().size(), "a view holding the memtable and its table");
                assertEquals(1, db.view.version().files(0).size());
                try (StoreIterator it = store.iterator(null, null)) {
                    assertEquals(OPERANDS, MergeOperators.int64(it.next().value()), "scan during the flush");
                }
            } finally {
                db.mutex().unlock();
            }
            flush.get(30, TimeUnit.SECONDS);
            assertEquals(0, db.view.immutables().size());
            assertEquals(OPERANDS, MergeOperators.int64(store.get(b("c"))));
            try (StoreIterator it = store.iterator(null, null)) {
                assertEquals(OPERANDS, MergeOperators.int64(it.next().value()), "scan after the flush");
            }
        }
    }
}
