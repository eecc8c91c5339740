package io.bloomstore.core.db;

import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.io.TableFileCache;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableFileNames;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Opens a store: takes the LOCK, then decides whether the directory holds a store (CURRENT) or is
 * to become one — under the lock, so that another process creating the same store meanwhile is
 * seen, never overwritten — then recovers — CURRENT → MANIFEST →
 * version (tables registered, each opened on first use) → WAL segments newer than the manifest's log number
 * replayed (and written as a level-0 table, unless they are few and small enough to stay in the WAL
 * as they are) → a fresh WAL. See {@code docs/architecture.md}.
 *
 * <p>Thread safety: stateless; each open runs on the caller's thread.
 */
final class StoreOpener {
    /**
     * A writable open keeps the replayed writes in the WAL segments they came from (see
     * {@link DbBackground#finishRecovery}) while fewer segments than this await replay; at this many
     * it writes them to a level-0 table and deletes the segments, so a series of one-shot writes
     * leaves a bounded number of segments behind.
     */
    static final int MAX_KEPT_WAL_SEGMENTS = 8;

    private StoreOpener() {
    }

    static Store open(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        if (fs == null || dir == null || options == null) {
            throw new IllegalArgumentException("file system, directory and options must not be null");
        }
        // The first open in the process: the classes it and the first reads and writes need are
        // loaded meanwhile on another thread.
        ClassPreloader.startOnce();
        // A bad bloomstore.offheap setting fails this open instead of the first flush; without one,
        // how filters reach memory is chosen by the first filter mapped.
        OffHeapBackend.checkSetting();
        if (!fs.exists(dir)) {
            if (!options.createIfMissing()) {
                throw new IllegalArgumentException("no store at " + dir
                        + ": the directory does not exist (createIfMissing is false)");
            }
            createDurably(fs, dir);
        }
        // Refused before the lock too, so that a directory that is not a store gets no LOCK file.
        if (!fs.exists(dir.resolve(FileNames.CURRENT))) {
            try {
                checkCreatable(fs, dir, options);
            } catch (IllegalArgumentException e) {
                // Another opener may have created the store between the check for CURRENT and the
                // listing (its CURRENT, then its WAL, appear in the listing): then it is a store,
                // and the lock decides below. Anything else is refused.
                if (!fs.exists(dir.resolve(FileNames.CURRENT))) {
                    throw e;
                }
            }
        }
        Closeable lock = fs.lock(dir.resolve(FileNames.LOCK));
        VersionSet versions = null;
        TableRegistry tables = null;
        WritableFile walFile = null;
        DbImpl db = null;
        try {
            // Decided only now, under the lock: another process may have created the store since.
            boolean isStore = fs.exists(dir.resolve(FileNames.CURRENT));
            if (!isStore) {
                checkCreatable(fs, dir, options);
            }
            versions = isStore ? VersionSet.recover(fs, dir, options.maxManifestBytes())
                    : VersionSet.create(fs, dir, options.maxManifestBytes());
            StoreCounters counters = new StoreCounters(Version.NUM_LEVELS);
            // One listing serves the tables' check, the WAL segments and the obsolete files below:
            // each listing cost an open some 3-6 ms at 10 M keys (245 files, interpreted).
            List<String> listing = fs.list(dir);
            tables = openTables(fs, dir, options, counters, versions, true, listing);
            List<Long> wals = walsToReplay(listing, versions);
            long walNumber = versions.newFileNumber();
            WalReplay.Result replayed = WalReplay.replay(fs, dir, wals, versions.lastSequence(),
                    options.walRecovery(), wals.isEmpty() ? walNumber : wals.get(0), false,
                    versions.keyspaces().keySet(), keyspaceLogNumbers(versions));
            boolean whole = replayed.clean() && replayed.reaches(versions.lastSequence());
            // Segments that replay to nothing (a clean close's, or records all in tables already)
            // are not kept: a fresh memtable on the new segment makes them obsolete, so a series of
            // reading or no-op opens does not pile up segments that every later open replays.
            boolean nothingToKeep = whole && replayed.allEmpty();
            // Segments are kept only from a clean close whose final sync succeeded (the mark at the
            // end of the newest): a process that died may have left bytes no disk holds.
            boolean keepInWal = nothingToKeep || whole && replayed.closedCleanly()
                    && wals.size() < MAX_KEPT_WAL_SEGMENTS
                    && replayed.approximateBytes() <= options.memtableBytes() / 4;
            walFile = fs.create(FileNames.wal(dir, walNumber));
            LogWriter wal = new LogWriter(walFile, LogFormat.WAL_MAGIC);
            // The new segment's name is durable before any write relies on it, and before recovery
            // deletes the segments it replaces.
            fs.syncDirectory(dir);
            CountersFile cumulative = CountersFile.open(fs, dir, counters);
            db = new DbImpl(fs, dir, options, counters, cumulative, versions, tables, lock, walNumber, wal,
                    replayed.lastSequence());
            // After a crash, a whole replay's writes are flushed in the background (DbFlush.finishRecovery).
            DbFlush.Recovery how = keepInWal ? DbFlush.Recovery.KEEP_IN_WAL
                    : whole ? DbFlush.Recovery.FLUSH_IN_BACKGROUND : DbFlush.Recovery.FLUSH_NOW;
            db.finishRecovery(nothingToKeep ? new MemTable(walNumber) : replayed.memtable(),
                    nothingToKeep ? java.util.Map.of() : replayed.keyspaceMemtables(), replayed.dropped(),
                    how, listing);
        } catch (IOException | RuntimeException | Error e) {
            releaseAfterFailure(e, db, walFile, tables, versions, lock);
            throw e;
        }
        try {
            db.joinResources();
            db.registerJmx();
        } catch (RuntimeException e) {
            // The store is fully open by now: close it the ordinary way.
            try {
                db.close();
            } catch (IOException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
        return db;
    }

    /**
     * After a failed open, lets go of everything it took — background threads, the WAL segment's
     * descriptor and buffer, every table (descriptors, mapped filters, off-heap indexes), the
     * MANIFEST and the LOCK — so that a failed open leaves nothing behind and the store can be
     * opened again. Failures while releasing are added to {@code failure}.
     */
    private static void releaseAfterFailure(Throwable failure, DbImpl db, WritableFile walFile, TableRegistry tables,
                                            VersionSet versions, Closeable lock) {
        List<Closeable> steps = new ArrayList<>();
        if (db != null) {
            steps.add(db::abandonOpen);
        }
        if (walFile != null) {
            steps.add(walFile);
        }
        if (tables != null) {
            steps.add(tables::closeAll);
        }
        if (versions != null) {
            steps.add(versions);
        }
        steps.add(lock);
        // Not to exit inside the filter memory's start-up should the failure end the process.
        steps.add(OffHeapBackend::awaitChoiceAhead);
        for (Closeable step : steps) {
            try {
                step.close();
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /**
     * Creates the store directory and any missing parents, syncing each new directory's parent so
     * that a new store's directory survives a power loss with the first sync write in it.
     */
    private static void createDurably(FileSystem fs, Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing.getParent() != null && !fs.exists(existing)) {
            existing = existing.getParent();
        }
        fs.createDirectories(dir);
        for (Path p = absolute; p != null && !p.equals(existing); p = p.getParent()) {
            if (p.getParent() != null) {
                fs.syncDirectory(p.getParent());
            }
        }
    }

    /**
     * Opens the store in {@code dir} for reading only, as RocksDB's {@code OpenForReadOnly}: under a
     * shared lock (other read-only openers are welcome, a writer is refused and refuses this), the
     * MANIFEST read as it is, the WAL segments replayed into memory only; no file is created,
     * written or deleted, no background thread started — except that close adds this open's
     * counters to {@code COUNTERS} where the directory is writable.
     *
     * @throws IllegalArgumentException when {@code dir} holds no store
     * @throws io.bloomstore.core.LockedException when a writer has the store open
     */
    static Store openReadOnly(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        if (fs == null || dir == null || options == null) {
            throw new IllegalArgumentException("file system, directory and options must not be null");
        }
        ClassPreloader.startOnce();
        OffHeapBackend.checkSetting();
        if (!fs.exists(dir)) {
            throw new IllegalArgumentException("no store at " + dir + ": the directory does not exist");
        }
        if (!fs.exists(dir.resolve(FileNames.CURRENT))) {
            List<String> entries = new ArrayList<>(fs.list(dir));
            entries.remove(FileNames.LOCK);
            throw new IllegalArgumentException(entries.isEmpty()
                    ? "no store at " + dir + ": the directory is empty"
                    : dir + " is not a BloomStore directory: it has no CURRENT file");
        }
        Closeable lock = fs.lockShared(dir.resolve(FileNames.LOCK));
        VersionSet versions = null;
        TableRegistry tables = null;
        DbImpl db = null;
        try {
            versions = VersionSet.recoverReadOnly(fs, dir);
            StoreCounters counters = new StoreCounters(Version.NUM_LEVELS);
            List<String> listing = fs.list(dir);
            tables = openTables(fs, dir, options, counters, versions, false, listing);
            WalReplay.Result replayed = WalReplay.replay(fs, dir, walsToReplay(listing, versions),
                    versions.lastSequence(), options.walRecovery(), versions.logNumber(), true,
                    versions.keyspaces().keySet(), keyspaceLogNumbers(versions));
            CountersFile cumulative = CountersFile.open(fs, dir, counters);
            db = new DbImpl(fs, dir, options, counters, cumulative, versions, tables, lock, versions.logNumber(), null,
                    replayed.lastSequence());
            db.finishRecovery(replayed.memtable(), replayed.keyspaceMemtables(), replayed.dropped(),
                    DbFlush.Recovery.KEEP_IN_WAL, listing);
            db.joinResources();
            db.registerJmx();
            return db;
        } catch (IOException | RuntimeException | Error e) {
            if (db != null) {
                try {
                    db.close();
                } catch (IOException closeFailure) {
                    e.addSuppressed(closeFailure);
                }
            } else {
                if (tables != null) {
                    tables.closeAll();
                }
                if (versions != null) {
                    versions.close();
                }
                lock.close();
            }
            throw e;
        }
    }

    /**
     * The registry of the current version's tables, each registered to be opened on first use
     * ({@link TableRegistry#register}); {@code checkFiltersAhead} as {@link TableRegistry}'s. A
     * table whose files are missing from the directory fails the open here, as it did when every
     * table was opened at once; a damaged one is reported by its first use. {@code listing}: the
     * directory's file names.
     */
    static TableRegistry openTables(FileSystem fs, Path dir, StoreOptions options, StoreCounters counters,
                                            VersionSet versions, boolean checkFiltersAhead, List<String> listing)
            throws IOException {
        SharedResources shared = SharedResources.of(options.resources());
        shared.checkOpen();
        // A cache of its own when the options size one, else a view of the resources' shared cache.
        BlockCache cache = !options.ownBlockCache() ? shared.blockCache().view()
                : options.blockCacheBytes() == 0 ? BlockCache.disabled() : new BlockCache(options.blockCacheBytes());
        TableRegistry tables = new TableRegistry(fs, dir, TableOptions.of(options), cache, counters,
                new TableFileCache(fs, options.tableFileCacheCapacity(), options.directReads()), checkFiltersAhead,
                options.backgroundNiceness(), shared.reclaimPool());
        try {
            Set<String> present = new HashSet<>(listing);
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (FileMetaData f : versions.current().files(level)) {
                    requirePresent(present, dir, TableFileNames.table(f.fileNumber()));
                    if (f.filterFileSize() > 0) {
                        requirePresent(present, dir, TableFileNames.filter(f.fileNumber()));
                    }
                    tables.register(f.fileNumber(), level);
                }
            }
            return tables;
        } catch (IOException | RuntimeException | Error e) {
            tables.closeAll();
            throw e;
        }
    }

    /** A name, not a path: resolving two paths per table cost an open some 3 ms at 10 M keys. */
    private static void requirePresent(Set<String> present, Path dir, String name) throws NoSuchFileException {
        if (!present.contains(name)) {
            throw new NoSuchFileException(dir.resolve(name).toString(), null, "a table file of the store's current "
                    + "version is missing from " + dir);
        }
    }

    /**
     * The WAL segments recovery replays, oldest first: those numbered from the MANIFEST's log
     * number on. Marks every numbered file's number as used, so new files never reuse one.
     */
    /**
     * Per keyspace, the segment its replay starts at ({@link VersionSet#keyspaceLogNumber}); empty for
     * a store without keyspaces, whose replay starts at the store's log number.
     */
    static Map<Integer, Long> keyspaceLogNumbers(VersionSet versions) {
        if (versions.keyspaceLogNumbers().isEmpty()) {
            return Map.of();
        }
        Map<Integer, Long> m = new HashMap<>();
        m.put(0, versions.keyspaceLogNumber(0));
        for (int id : versions.keyspaces().keySet()) {
            m.put(id, versions.keyspaceLogNumber(id));
        }
        return m;
    }

    private static List<Long> walsToReplay(List<String> listing, VersionSet versions) {
        List<Long> wals = new ArrayList<>();
        for (String name : listing) {
            FileNames.Parsed p = FileNames.parse(name);
            if (p != null) {
                versions.markFileNumberUsed(p.number());
                if (p.kind() == FileNames.Kind.WAL && p.number() >= versions.logNumber()) {
                    wals.add(p.number());
                }
            }
        }
        Collections.sort(wals);
        return wals;
    }

    /** For a directory without CURRENT: refuses one holding anything but a new store's leftovers. */
    private static void checkCreatable(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        List<String> other = new ArrayList<>(fs.list(dir));
        other.remove(FileNames.LOCK);
        // A crash while a new store was being created leaves a MANIFEST and perhaps CURRENT.tmp
        // but no CURRENT: nothing was ever acknowledged, so creation simply starts again.
        other.removeIf(StoreOpener::isCreationLeftover);
        if (!other.isEmpty()) {
            Collections.sort(other);
            throw new IllegalArgumentException(dir + " is not a BloomStore directory: it has no CURRENT file but "
                    + "holds " + other.size() + " other entries (" + String.join(", ",
                    other.subList(0, Math.min(3, other.size()))) + (other.size() > 3 ? ", ..." : "") + ")");
        }
        if (!options.createIfMissing()) {
            throw new IllegalArgumentException("no store at " + dir + ": the directory is empty "
                    + "(createIfMissing is false)");
        }
    }

    private static boolean isCreationLeftover(String name) {
        FileNames.Parsed p = FileNames.parse(name);
        return p != null && (p.kind() == FileNames.Kind.MANIFEST || p.kind() == FileNames.Kind.TEMP);
    }
}
