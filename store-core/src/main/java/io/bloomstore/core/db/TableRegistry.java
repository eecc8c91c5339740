package io.bloomstore.core.db;

import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.io.TableFileCache;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.FilterSummary;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live tables of a store, by file number: each is opened once (its filter mapped) — at its
 * first use for the tables a store opens with, at once for those a flush or compaction writes — and shared through reference-counted {@link TableHandle}s. A table dropped from the live set
 * stays open until its last reader lets go; then it is closed (its filter unmapped), its cached
 * blocks are invalidated and, if a compaction made it obsolete, its {@code .sst} and
 * {@code .filter} files are deleted — on the registry's own background thread, never on the
 * reader's (a {@code get} or iterator close must not pay for an unmap or a delete, nor see its
 * failure, which is logged). The same thread checks each newly opened table's filter sidecar
 * (its payload CRC) ahead of the table's first "absent" answer, which would otherwise wait for
 * that whole-file read. Once the store is closed, a table still held by an iterator is
 * reclaimed on the thread that closes the iterator. Replaced tables whose files are not deleted
 * yet when the store closes are left on disk: they are in no MANIFEST, and the next open deletes
 * them as orphans before it hands the store out. The tables' {@code .sst} descriptors are held
 * by a {@link TableFileCache}, which bounds how many are open at once
 * ({@code StoreOptions.maxOpenFiles}).
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class TableRegistry {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TableRegistry.class);
    }

    private final FileSystem fs;
    private final Path dir;
    private final TableOptions options;
    private final BlockCache cache;
    private final StoreCounters counters;
    private final TableFileCache files;
    private final Map<Long, TableHandle> open = new ConcurrentHashMap<>();
    /** Tables dropped from the live set whose last reader has not let go yet. */
    private final Map<Long, TableHandle> draining = new ConcurrentHashMap<>();
    private final LimitedExecutor reclaimer;
    /** The pool {@link #reclaimer} runs on, for {@link #sibling}s. */
    private final Executor reclaimPool;
    /** The reclaimer's thread, once it has run a task. */
    private volatile Thread reclaimThread;
    /** Opens a registered table on first use; reclaims a handle whose last reference went. */
    private final Hooks hooks = new Hooks();
    /** Whether {@link #open} queues the sidecar check; a read-only open leaves it to the lookups. */
    private final boolean checkFiltersAhead;
    /** {@code StoreOptions.backgroundNiceness}: the reclaimer's thread lowers itself by it on its first task. */
    private final int backgroundNiceness;
    private volatile boolean closing;

    TableRegistry(FileSystem fs, Path dir, TableOptions options, BlockCache cache, StoreCounters counters,
                  TableFileCache files) {
        this(fs, dir, options, cache, counters, files, true, 0,
                SharedResources.of(io.bloomstore.core.StoreResources.shared()).reclaimPool());
    }

    /**
     * {@code checkFiltersAhead} false: no background check of new tables' sidecars. A store opened
     * read-only, typically for a few lookups, would otherwise read every sidecar whole on a thread
     * of its own while it needs two or three of them. {@code backgroundNiceness}: how far the
     * reclaimer's thread lowers itself on its first task (0: not at all). {@code reclaimPool}: the
     * shared pool this store's reclaiming runs on, one task at a time.
     */
    TableRegistry(FileSystem fs, Path dir, TableOptions options, BlockCache cache, StoreCounters counters,
                  TableFileCache files, boolean checkFiltersAhead, int backgroundNiceness, Executor reclaimPool) {
        this.checkFiltersAhead = checkFiltersAhead;
        this.backgroundNiceness = backgroundNiceness;
        this.fs = fs;
        this.files = files;
        this.dir = dir;
        this.options = options;
        this.cache = cache;
        this.counters = counters;
        this.reclaimer = new LimitedExecutor(reclaimPool, 1);
        this.reclaimPool = reclaimPool;
    }

    /**
     * A registry for another keyspace's tables: its own table options (filters, prefix extractor,
     * compression) and counters, this one's block cache, descriptor cache and reclaiming pool.
     */
    TableRegistry sibling(TableOptions tableOptions, StoreCounters keyspaceCounters) {
        return new TableRegistry(fs, dir, tableOptions, cache, keyspaceCounters, files, checkFiltersAhead,
                backgroundNiceness, reclaimPool);
    }

    /**
     * Opens a live table of {@code level} now, its filter mapped and its index decoded: a table a
     * flush or compaction just wrote, whose damage must surface before it is installed, and whose
     * first lookups, on readers' threads, should find it ready (a registered table's index waits
     * for its first lookups instead: a store's open loads none).
     */
    void open(long fileNumber, int level) throws IOException {
        TableReader reader = openReader(fileNumber, level);
        try {
            reader.loadIndex();
        } catch (IOException | RuntimeException e) {
            try {
                reader.close();
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        TableHandle h = new TableHandle(fileNumber, level, reader, hooks);
        open.put(fileNumber, h);
        if (checkFiltersAhead && h.openedReader().filterUnchecked()) {
            checkAhead(h);
        }
    }

    /**
     * Registers a live table of {@code level} without opening it: its first use opens it
     * ({@link TableHandle#reader()}), and then, in a writable store ({@code checkFiltersAhead}),
     * queues the check of its filter sidecar on this registry's background thread. A store's open
     * registers its tables so: it opens none of them, and neither does the background thread,
     * whose work a close would otherwise wait for.
     */
    void register(long fileNumber, int level) {
        open.put(fileNumber, new TableHandle(fileNumber, level, hooks, hooks));
    }

    /** The handles' opener and closer (a class, not method references: no lambda spun at a first open). */
    private final class Hooks implements TableHandle.Opener, TableHandle.Closer {
        @Override
        public TableReader open(TableHandle handle) throws IOException {
            return openRegistered(handle);
        }

        @Override
        public void closed(TableHandle handle) {
            TableRegistry.this.closed(handle);
        }
    }

    /**
     * Work for the background thread on one table: the check of its filter sidecar, or its
     * reclaiming (a class, not lambdas: a one-shot command's close would spin one).
     */
    private final class Task implements Runnable {
        private final TableHandle handle;
        private final boolean check;

        Task(TableHandle handle, boolean check) {
            this.handle = handle;
            this.check = check;
        }

        @Override
        public void run() {
            reclaimThread = Thread.currentThread();
            BackgroundPriority.lowerCurrentThread(backgroundNiceness);
            if (check) {
                checkFilter(handle);
            } else {
                reclaim(handle);
            }
        }
    }

    private TableReader openRegistered(TableHandle h) throws IOException {
        // A registered table's first user may be a compaction, which reads no filter: the filter
        // is mapped by the first lookup or scan that consults it.
        TableReader reader = TableReader.openFilterOnFirstUse(fs, dir, h.fileNumber(), options, cache, counters,
                counters.level(h.level()), files);
        if (checkFiltersAhead && reader.filterUnchecked()) {
            // The task waits for this open to finish (the handle's lock) before it reads the sidecar.
            checkAhead(h);
        }
        return reader;
    }

    private TableReader openReader(long fileNumber, int level) throws IOException {
        return TableReader.open(fs, dir, fileNumber, options, cache, counters, counters.level(level), files);
    }

    private void checkAhead(TableHandle h) {
        try {
            reclaimer.execute(new Task(h, true));
        } catch (RejectedExecutionException e) {
            // Closing: the first "absent" answer checks the filter, as it would have anyway.
        }
    }

    /**
     * On the background thread: checks a newly opened table's filter sidecar (its payload CRC),
     * which otherwise the table's first "absent" answer would wait for. Skipped once the store is
     * closing (close must not wait for reads) or the table is gone. A failure is logged and left
     * to the lookups, which check again and report it.
     */
    private void checkFilter(TableHandle h) {
        if (closing || !h.retain()) {
            return;
        }
        try {
            TableReader r = h.reader();
            if (r.filterUnchecked()) {
                r.checkFilter();
            }
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("checking the filter sidecar of table {} failed; its lookups check it again and report "
                    + "what they find", h.fileNumber(), e);
        } finally {
            h.release();
        }
    }

    /** A trivial move took a live table to {@code level}: its filter answers count there from now on. */
    void moved(long fileNumber, int level) {
        TableHandle h = open.get(fileNumber);
        if (h != null) {
            h.movedTo(level, counters.level(level));
        }
    }

    /**
     * A retained handle on a live table; the caller must {@link TableHandle#release()} it.
     *
     * @throws IllegalStateException when the table is not open (the store was closed meanwhile)
     */
    TableHandle acquire(long fileNumber) {
        TableHandle h = open.get(fileNumber);
        if (h == null || !h.retain()) {
            throw new IllegalStateException("table " + fileNumber + " is not open (store closed?)");
        }
        return h;
    }

    /**
     * Removes a table from the live set; it closes once its last reader lets go, and its files
     * are then deleted when {@code obsolete}.
     */
    void drop(long fileNumber, boolean obsolete) {
        TableHandle h = open.remove(fileNumber);
        if (h != null) {
            if (obsolete) {
                h.markObsolete();
            }
            draining.put(fileNumber, h);
            h.release();
        }
    }

    /**
     * On the thread that let go of the last reference: hands the table's reclaiming on. When that is
     * the background thread itself (a filter check held the last reference of a table dropped
     * meanwhile), it reclaims at once: queued behind it, the reclaiming would run after the marker
     * {@link #awaitReclaimed()} queued, which would then return with the table still on disk.
     */
    private void closed(TableHandle h) {
        if (Thread.currentThread() == reclaimThread) {
            reclaim(h);
            return;
        }
        try {
            reclaimer.execute(new Task(h, false));
        } catch (RejectedExecutionException e) {
            reclaim(h);
        }
    }

    private void reclaim(TableHandle h) {
        try {
            TableReader r = h.takeReaderForClose();
            if (r != null) {
                r.close();
            }
            cache.invalidateFile(h.fileNumber());
            // At close too: a closed store leaves no file its version does not name (RocksDB
            // purges obsolete files before its close returns), whatever the unlinks cost.
            if (h.obsolete()) {
                fs.delete(FileNames.table(dir, h.fileNumber()));
                fs.delete(FileNames.filter(dir, h.fileNumber()));
            }
        } catch (Throwable t) {
            // Nobody waits for this: a file left behind is deleted as an orphan by the next open.
            Log.LOG.warn("closing or deleting replaced table {} failed; the next open deletes what is left", h.fileNumber(),
                    t);
        } finally {
            draining.remove(h.fileNumber());
        }
    }

    /**
     * What statistics report about table {@code f}'s filters ({@code h} its handle, retained by the
     * caller), without opening it: an opened table answers from its reader; one not opened yet
     * from its sidecar's headers, read once ({@link FilterSummary#read}) and kept on the handle. So
     * statistics on a store of thousands of tables register no reader, hold no descriptor, map no
     * filter and queue no sidecar check; the first call reads each unopened table's sidecar
     * headers, later calls read nothing.
     *
     * @throws UncheckedIOException when the sidecar is missing or its headers are damaged
     */
    FilterSummary filterSummary(TableHandle h, FileMetaData f) {
        TableReader r = h.openedReader();
        if (r != null) {
            return r.filterSummary();
        }
        FilterSummary s = h.describedFilters();
        if (s == null) {
            try {
                s = FilterSummary.read(fs, dir, f.fileNumber(), f.filterFileSize());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            h.describedFilters(s);
        }
        return s;
    }

    /** Bytes of filters held by the live tables opened so far (mapped, or loaded when mapping is unsupported). */
    long filterBytes() {
        long sum = 0;
        for (TableHandle h : open.values()) {
            TableReader r = h.openedReader();
            sum += r == null ? 0 : r.filterBytes();
        }
        return sum;
    }

    /** Estimated heap bytes of the indexes of the live tables opened so far. */
    long indexHeapBytes() {
        long sum = 0;
        for (TableHandle h : open.values()) {
            TableReader r = h.openedReader();
            sum += r == null ? 0 : r.indexHeapBytes();
        }
        return sum;
    }

    /** Bytes of the indexes of the live tables opened so far, held off the heap. */
    long indexOffHeapBytes() {
        long sum = 0;
        for (TableHandle h : open.values()) {
            TableReader r = h.openedReader();
            sum += r == null ? 0 : r.indexOffHeapBytes();
        }
        return sum;
    }

    /** Live tables whose reader has been opened (the others are opened on first use). */
    int openedTables() {
        int n = 0;
        for (TableHandle h : open.values()) {
            n += h.openedReader() != null ? 1 : 0;
        }
        return n;
    }

    /** Live tables opened so far whose filter sidecar has been checked (its payload CRC). */
    int checkedTables() {
        int n = 0;
        for (TableHandle h : open.values()) {
            TableReader r = h.openedReader();
            n += r != null && !r.filterUnchecked() ? 1 : 0;
        }
        return n;
    }

    /** Bytes of this store's blocks in its block cache (or its share of a shared one). */
    long blockCacheBytes() {
        return cache.sizeBytes();
    }

    /** Table files held open now (the descriptors of the store's file cache). */
    int openFiles() {
        return files.openFiles();
    }

    /** Live tables plus dropped ones still held by readers. */
    int openTables() {
        return open.size() + draining.size();
    }

    /** Whether a table file number is live or still held: orphan cleanup must leave it alone. */
    boolean holds(long fileNumber) {
        return open.containsKey(fileNumber) || draining.containsKey(fileNumber);
    }

    /**
     * Deletes, on the background thread, table and filter files the open found in no version (a
     * compaction's inputs a close left on disk, an interrupted flush's or compaction's outputs):
     * gigabytes after a large compaction, whose unlinks would otherwise hold the open for seconds.
     * Their numbers are marked used, so no new file takes one. Close waits for it to finish.
     * {@link #awaitReclaimed()} waits for it.
     */
    void deleteOrphans(List<Path> files) {
        if (files.isEmpty()) {
            return;
        }
        try {
            reclaimer.execute(new OrphanDeletion(files));
        } catch (RejectedExecutionException e) {
            // Closing already: the next open deletes them.
        }
    }

    /** Deletes orphan files one by one until done or the store closes (a class, not a lambda). */
    private final class OrphanDeletion implements Runnable {
        private final List<Path> files;

        OrphanDeletion(List<Path> files) {
            this.files = files;
        }

        @Override
        public void run() {
            BackgroundPriority.lowerCurrentThread(backgroundNiceness);
            for (Path f : files) {
                try {
                    fs.delete(f);
                } catch (IOException | RuntimeException e) {
                    Log.LOG.warn("deleting orphan file {} failed; the next open tries again", f, e);
                }
            }
        }
    }

    /** Waits until every table whose last reference is already gone has been closed and deleted. */
    void awaitReclaimed() {
        try {
            reclaimer.submit(() -> { }).get();
        } catch (RejectedExecutionException e) {
            // Closed: reclaiming now happens on the releasing thread itself.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("an empty task failed", e);
        }
    }

    /**
     * At close: drops every live table, closes on the calling thread those no iterator holds, and
     * waits for what the background thread had queued or is running, obsolete tables' and orphans'
     * deletions included (logging every 10 s it waits).
     */
    void closeAll() {
        closing = true;
        // Shut down first, so the closing thread closes the live tables itself (each release finds
        // the executor refusing it): on a busy machine each hand-off to another thread waits
        // milliseconds for a core. What was queued before runs on the reclaim thread; the filter
        // checks among it return at once. The queue is not drained from here: a worker that saw it
        // non-empty after shutdown's wake-up would then wait in take() forever, and so would close.
        reclaimer.shutdown();
        for (Long n : open.keySet()) {
            drop(n, false);
        }
        try {
            while (!reclaimer.awaitTermination(10, TimeUnit.SECONDS)) {
                Log.LOG.warn("tables of {} still being closed or deleted after 10 s; close waits for them", dir);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cache.closeView();
    }
}
