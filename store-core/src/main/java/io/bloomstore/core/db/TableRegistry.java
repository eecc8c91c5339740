package io.bloomstore.core.db;

import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open tables of a store, by file number: each live table is opened once (its filter mapped)
 * and shared through reference-counted {@link TableHandle}s. A table dropped from the live set
 * stays open until its last reader lets go; then its cached blocks are invalidated and, if a
 * compaction made it obsolete, its {@code .sst} and {@code .filter} files are deleted.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class TableRegistry {
    private final FileSystem fs;
    private final Path dir;
    private final TableOptions options;
    private final BlockCache cache;
    private final StoreCounters counters;
    private final Map<Long, TableHandle> open = new ConcurrentHashMap<>();
    /** Tables dropped from the live set whose last reader has not let go yet. */
    private final Map<Long, TableHandle> draining = new ConcurrentHashMap<>();

    TableRegistry(FileSystem fs, Path dir, TableOptions options, BlockCache cache, StoreCounters counters) {
        this.fs = fs;
        this.dir = dir;
        this.options = options;
        this.cache = cache;
        this.counters = counters;
    }

    /** Opens a live table of {@code level} (maps its filter; reads only its footer, index and properties). */
    void open(long fileNumber, int level) throws IOException {
        TableReader reader = TableReader.open(fs, dir, fileNumber, options, cache, counters, counters.level(level));
        open.put(fileNumber, new TableHandle(fileNumber, level, reader, this::closed));
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

    private void closed(TableHandle h) throws IOException {
        draining.remove(h.fileNumber());
        cache.invalidateFile(h.fileNumber());
        if (h.obsolete()) {
            fs.delete(FileNames.table(dir, h.fileNumber()));
            fs.delete(FileNames.filter(dir, h.fileNumber()));
        }
    }

    /** Bytes of filters held by the live tables (mapped, or loaded when mapping is unsupported). */
    long filterBytes() {
        long sum = 0;
        for (TableHandle h : open.values()) {
            sum += h.reader().filterBytes();
        }
        return sum;
    }

    /** Estimated heap bytes of the live tables' decoded indexes. */
    long indexHeapBytes() {
        long sum = 0;
        for (TableHandle h : open.values()) {
            sum += h.reader().indexHeapBytes();
        }
        return sum;
    }

    /** Live tables plus dropped ones still held by readers. */
    int openTables() {
        return open.size() + draining.size();
    }

    /** Whether a table file number is live or still held: orphan cleanup must leave it alone. */
    boolean holds(long fileNumber) {
        return open.containsKey(fileNumber) || draining.containsKey(fileNumber);
    }

    void closeAll() {
        for (Long n : open.keySet()) {
            drop(n, false);
        }
    }
}
