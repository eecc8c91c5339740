package io.bloomstore.core.db;

import io.bloomstore.core.IngestReport;
import io.bloomstore.core.TableWriter;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Links tables a {@link TableWriter} built into an open store ({@link io.bloomstore.core.Store#ingest}),
 * without rewriting them: each is hard-linked (or copied) into the store directory under a new
 * number, opened and checked, then all are added in one MANIFEST edit.
 *
 * <p>Their entries carry sequence number 0, the oldest there is, so they are only correct where
 * the store holds no version of their keys: a table whose key range overlaps a table of the store,
 * or another table of the same call, is refused (nothing is ingested), and so is an ingest while
 * a {@link io.bloomstore.core.Snapshot} is open (it would see the new keys); memtables count as
 * tables here (a key written but not flushed is a version too). The edit is made at a write barrier with the store mutex held, so no write, flush install or
 * compaction pick runs beside it: each table goes to the last level when no compaction is queued
 * or running (one running might install an output spanning its range in that level), else to
 * level 0. Writers wait for the MANIFEST write (milliseconds); reads go on.
 *
 * <p>Thread safety: stateless; concurrent ingests are serialised by the barrier.
 */
final class Ingester {
    private record Staged(Path source, long number, TableMetadata meta, boolean linkedTable, boolean linkedFilter) {
        FileMetaData fileMeta() {
            return new FileMetaData(number, meta.fileSize(), meta.filterFileSize(), meta.smallestUserKey(),
                    meta.largestUserKey(), meta.entries(), meta.smallestSeq(), meta.largestSeq());
        }
    }

    private Ingester() {
    }

    static IngestReport ingest(DbState db, DbBackground background, List<Path> files)
            throws IOException {
        db.checkOpen();
        db.checkWritable();
        if (files == null || files.isEmpty()) {
            throw new IllegalArgumentException("no tables to ingest");
        }
        List<Staged> staged = new ArrayList<>();
        // Once the tables are being registered and logged, their files are the store's: a failure
        // from then on may have left a durable edit naming them, so they are never deleted here.
        boolean[] committing = {false};
        boolean installed = false;
        try {
            for (Path f : files) {
                staged.add(stage(db, f));
            }
            staged.sort((a, b) -> Arrays.compareUnsigned(a.meta.smallestUserKey(), b.meta.smallestUserKey()));
            for (int i = 1; i < staged.size(); i++) {
                if (Arrays.compareUnsigned(staged.get(i - 1).meta.largestUserKey(),
                        staged.get(i).meta.smallestUserKey()) >= 0) {
                    throw new IllegalArgumentException("tables " + staged.get(i - 1).source + " and "
                            + staged.get(i).source + " overlap: tables ingested together must hold disjoint key"
                            + " ranges");
                }
            }
            int[][] levels = {null};
            db.queue.submitBarrier(group -> levels[0] = install(db, background, staged, committing));
            installed = true;
            List<Integer> chosen = new ArrayList<>();
            long entries = 0;
            long bytes = 0;
            int linked = 0;
            for (Staged s : staged) {
                entries += s.meta.entries();
                bytes += s.meta.fileSize() + s.meta.filterFileSize();
                linked += (s.linkedTable ? 1 : 0) + (s.linkedFilter ? 1 : 0);
            }
            for (Path f : files) {
                for (int i = 0; i < staged.size(); i++) {
                    if (staged.get(i).source.equals(f)) {
                        chosen.add(levels[0][i]);
                    }
                }
            }
            return new IngestReport(staged.size(), entries, bytes, chosen, linked);
        } finally {
            if (!installed && !committing[0]) {
                for (Staged s : staged) {
                    db.fs.delete(FileNames.table(db.dir, s.number));
                    db.fs.delete(FileNames.filter(db.dir, s.number));
                }
            }
        }
    }

    /** Links (or copies) one table and its sidecar into the store directory under a new number and checks it. */
    private static Staged stage(DbState db, Path source) throws IOException {
        if (source == null || !db.fs.exists(source)) {
            throw new IllegalArgumentException("no table file " + source);
        }
        long number = db.versions.newFileNumber();
        boolean linkedTable = db.fs.linkOrCopy(source, FileNames.table(db.dir, number));
        Path filter = TableWriter.filterOf(source);
        boolean linkedFilter = false;
        if (db.fs.exists(filter)) {
            linkedFilter = db.fs.linkOrCopy(filter, FileNames.filter(db.dir, number));
        }
        TableMetadata meta;
        try (TableReader r = TableReader.open(db.fs, db.dir, number, TableOptions.of(db.options),
                BlockCache.disabled(), new StoreCounters())) {
            meta = r.metadata();
        } catch (IOException | RuntimeException e) {
            db.fs.delete(FileNames.table(db.dir, number));
            db.fs.delete(FileNames.filter(db.dir, number));
            throw e;
        }
        if (meta.smallestSeq() != 0 || meta.largestSeq() != 0) {
            db.fs.delete(FileNames.table(db.dir, number));
            db.fs.delete(FileNames.filter(db.dir, number));
            throw new IllegalArgumentException(source + " holds sequence numbers " + meta.smallestSeq() + ".."
                    + meta.largestSeq() + ": only tables a TableWriter built (sequence 0) can be ingested");
        }
        return new Staged(source, number, meta, linkedTable, linkedFilter);
    }

    /** At the barrier, mutex held: checks the tables against the store, adds them in one edit, returns each one's level. */
    private static int[] install(DbState db, DbBackground background, List<Staged> staged, boolean[] committing)
            throws IOException {
        if (!db.snapshots.isEmpty()) {
            throw new IllegalStateException("cannot ingest while " + db.snapshots.size() + " snapshots are open: they"
                    + " would see the ingested keys (close them first)");
        }
        ReadView view = db.view;
        List<MemTable> mems = new ArrayList<>(view.immutables());
        mems.add(view.mem());
        for (MemTable m : mems) {
            for (Staged s : staged) {
                if (holdsKeyIn(m, s.meta.smallestUserKey(), s.meta.largestUserKey())) {
                    throw new IllegalArgumentException("table " + s.source + " overlaps keys the store holds (in its"
                            + " memtable): only key ranges new to the store can be ingested; write overlapping data"
                            + " with put or load");
                }
            }
        }
        Version v = db.versions.current();
        for (Staged s : staged) {
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (FileMetaData f : v.files(level)) {
                    if (f.overlaps(s.meta.smallestUserKey(), null) && keyAtMost(f.smallestKey(),
                            s.meta.largestUserKey())) {
                        throw new IllegalArgumentException("table " + s.source + " overlaps keys the store holds"
                                + " (level " + level + " table " + f.fileNumber() + "): only key ranges new to the"
                                + " store can be ingested; write overlapping data with put or load");
                    }
                }
            }
        }
        int level = background.compactionsIdle() ? Version.NUM_LEVELS - 1 : 0;
        VersionEdit edit = new VersionEdit();
        int[] levels = new int[staged.size()];
        committing[0] = true;
        try {
            for (int i = 0; i < staged.size(); i++) {
                Staged s = staged.get(i);
                db.tables.open(s.number, level);
                edit.addFile(level, s.fileMeta());
                levels[i] = level;
            }
            // The mutex stays held: a compaction picked meanwhile, not seeing these tables, could put
            // an output over their range in their level.
            db.versions.logAndApply(edit);
        } catch (IOException | RuntimeException | Error e) {
            // As a failed flush: the MANIFEST may hold the edit or part of it; writes stop, a reopen recovers.
            db.fail("ingest", e);
            db.queue.signalChange();
            throw e;
        }
        db.installVersion(db.versions.current(), view.mem(), view.immutables());
        background.maybeScheduleCompaction();
        return levels;
    }

    private static boolean keyAtMost(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b) <= 0;
    }

    /** Whether {@code m} holds an entry whose user key lies in [{@code from}, {@code to}]. */
    private static boolean holdsKeyIn(MemTable m, byte[] from, byte[] to) throws IOException {
        if (m.isEmpty()) {
            return false;
        }
        try (InternalIterator it = m.iterator()) {
            it.seek(from);
            return it.valid() && Arrays.compareUnsigned(it.key(), to) <= 0;
        }
    }
}
