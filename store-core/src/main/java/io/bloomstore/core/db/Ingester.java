package io.bloomstore.core.db;

import io.bloomstore.core.FilterChoice;
import io.bloomstore.core.IngestReport;
import io.bloomstore.core.TableWriter;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableBuilder;
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
 * all in one MANIFEST edit at a write barrier: each is hard-linked (or copied) into the store
 * directory under a new number and opened and checked first.
 *
 * <p>A {@code TableWriter}'s entries carry sequence number 0, the oldest there is. A table whose
 * key range overlaps no table of the store, no other table of the call, and no memtable key, while
 * no {@link io.bloomstore.core.Snapshot} is open, is linked as it is: the store holds no version of
 * its keys, so the oldest is right (and no snapshot sees it appear). It goes to the last level when
 * no compaction is queued or running (one running might install an output spanning its range in
 * that level), else to level 0. Any other table is rewritten into level 0 with a sequence number
 * above every write so far — also when a range tombstone meets its key range, which it must not
 * fall under — (one per table, in the order given, so a later table wins over an
 * earlier one), which makes it newer than all it overlaps, as RocksDB's global sequence number does
 * without the rewrite. Before any rewrite the memtables are flushed (at the barrier, so no write
 * comes between): a memtable is read before level 0, so it must hold nothing the ingest shadows,
 * and the WAL must hold no write numbered below the ones the rewrite takes, since replay wants its
 * numbers without a gap.
 *
 * <p>The barrier holds the store mutex throughout: no write, flush or compaction install,
 * compaction pick or new snapshot happens beside the checks, the rewrites and the edit, so writers
 * wait for those (milliseconds for linked tables, the rewrite for overlapping ones); reads go on.
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

    static IngestReport ingest(DbState db, DbBackground background, DbWrite writes, List<Path> files)
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
            int[][] levels = {null};
            boolean[] flushed = {false};
            db.queue.submitBarrier(group -> levels[0] = install(db, background, writes, staged, committing, flushed));
            installed = true;
            long entries = 0;
            long bytes = 0;
            int linked = 0;
            List<Integer> chosen = new ArrayList<>();
            for (int i = 0; i < staged.size(); i++) {
                Staged s = staged.get(i);
                entries += s.meta.entries();
                bytes += s.meta.fileSize() + s.meta.filterFileSize();
                linked += (s.linkedTable ? 1 : 0) + (s.linkedFilter ? 1 : 0);
                chosen.add(levels[0][i]);
            }
            return new IngestReport(staged.size(), entries, bytes, chosen, linked, flushed[0]);
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

    /**
     * At the barrier, mutex held: links or rewrites the tables, adds them in one edit and returns
     * each one's level, in the order given.
     */
    private static int[] install(DbState db, DbBackground background, DbWrite writes, List<Staged> staged,
                                 boolean[] committing, boolean[] flushed) throws IOException {
        // Dropped while the tables were staged (a drop leaves the list at a barrier too, so this
        // sees it): nothing is logged, and the caller deletes the staged files. Logging the edit
        // would fail the whole store for a keyspace that no longer exists.
        db.checkNotDropped();
        boolean snapshots = !db.snapshots.isEmpty();
        boolean anyRewrite = false;
        for (int i = 0; i < staged.size(); i++) {
            anyRewrite |= snapshots || overlapsVersion(db.versions.current(), staged.get(i).meta)
                    || overlapsOthers(staged, i) || overlapsMemtables(db.view, staged.get(i).meta)
                    || overlapsRangeTombstones(db.view, staged.get(i).meta);
        }
        if (anyRewrite) {
            // A rewritten table takes sequence numbers no WAL record carries, and replay wants the
            // WAL's numbers without a gap: the memtables go to tables first, so that the WAL holds
            // no write before the ones that follow this ingest's numbers. The ingest overlaps no
            // memtable then either (a memtable is read before level 0).
            writes.flushAtBarrier();
            flushed[0] = true;
        }
        ReadView view = db.view;
        Version v = db.versions.current();
        long sequence = db.root.lastSequence;
        long[] numbers = new long[staged.size()];
        FileMetaData[] metas = new FileMetaData[staged.size()];
        int[] levels = new int[staged.size()];
        List<Long> rewritten = new ArrayList<>();
        boolean idle = background.compactionsIdle();
        try {
            for (int i = 0; i < staged.size(); i++) {
                Staged s = staged.get(i);
                if (snapshots || overlapsVersion(v, s.meta) || overlapsOthers(staged, i)
                        || overlapsMemtables(view, s.meta) || overlapsRangeTombstones(view, s.meta)) {
                    metas[i] = rewrite(db, s, ++sequence);
                    rewritten.add(metas[i].fileNumber());
                    levels[i] = 0;
                } else {
                    metas[i] = s.fileMeta();
                    levels[i] = idle ? Version.NUM_LEVELS - 1 : 0;
                }
                numbers[i] = metas[i].fileNumber();
            }
        } catch (IOException | RuntimeException | Error e) {
            for (long n : rewritten) {
                db.fs.delete(FileNames.table(db.dir, n));
                db.fs.delete(FileNames.filter(db.dir, n));
            }
            throw e;
        }
        VersionEdit edit = new VersionEdit();
        if (sequence != db.root.lastSequence) {
            edit.setLastSequence(sequence);
        }
        committing[0] = true;
        try {
            for (int i = 0; i < staged.size(); i++) {
                db.tables.open(numbers[i], levels[i]);
                edit.addFile(levels[i], metas[i]);
            }
            // The mutex stays held: a compaction picked meanwhile, not seeing these tables, could put
            // an output over their range in their level.
            db.versions.logAndApply(edit);
        } catch (IOException | RuntimeException | Error e) {
            // As a failed flush: the MANIFEST may hold the edit or part of it; writes stop, a reopen recovers.
            db.root.fail("ingest", e);
            db.queue.signalChange();
            throw e;
        }
        db.root.lastSequence = sequence;
        db.installVersion(db.versions.current(), view.mem(), view.immutables());
        background.maybeScheduleCompaction();
        for (int i = 0; i < staged.size(); i++) {
            if (numbers[i] != staged.get(i).number) {
                // Rewritten: the linked original is nobody's now (the next open deletes it if this cannot).
                db.fs.delete(FileNames.table(db.dir, staged.get(i).number));
                db.fs.delete(FileNames.filter(db.dir, staged.get(i).number));
            }
        }
        return levels;
    }

    /** Whether a table of {@code v} has a key range meeting [{@code t}'s smallest, largest]. */
    private static boolean overlapsVersion(Version v, TableMetadata t) {
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : v.files(level)) {
                if (f.overlaps(t.smallestUserKey(), null) && keyAtMost(f.smallestKey(), t.largestUserKey())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean overlapsMemtables(ReadView view, TableMetadata t) throws IOException {
        if (holdsKeyIn(view.mem(), t.smallestUserKey(), t.largestUserKey())) {
            return true;
        }
        for (MemTable m : view.immutables()) {
            if (holdsKeyIn(m, t.smallestUserKey(), t.largestUserKey())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a live range tombstone meets the table's key range: linked as it is, at sequence 0,
     * its keys would lie under the tombstone and read as deleted. Rewritten, they are newer than
     * every tombstone, as RocksDB's ingested files are.
     */
    private static boolean overlapsRangeTombstones(ReadView view, TableMetadata t) {
        for (RangeTombstone r : view.rangeDeletions().tombstones()) {
            if (r.overlaps(t.smallestUserKey(), t.largestUserKey())) {
                return true;
            }
        }
        return false;
    }

    private static boolean overlapsOthers(List<Staged> staged, int i) {
        TableMetadata t = staged.get(i).meta;
        for (int j = 0; j < staged.size(); j++) {
            TableMetadata o = staged.get(j).meta;
            if (j != i && keyAtMost(o.smallestUserKey(), t.largestUserKey())
                    && keyAtMost(t.smallestUserKey(), o.largestUserKey())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Copies a staged table into a new level-0 table whose entries all carry {@code sequence},
     * with the filter the store's policy chooses for level 0. Returns its metadata.
     */
    private static FileMetaData rewrite(DbState db, Staged s, long sequence) throws IOException {
        long number = db.versions.newFileNumber();
        FilterChoice filter = db.options.filterPolicy().choose(0,
                db.levelShape(db.versions.current()).plus(0, s.meta.entries()));
        TableBuilder builder = new TableBuilder(db.fs, db.dir, number, TableOptions.of(db.options).withFilter(filter));
        TableMetadata t;
        try (TableReader r = TableReader.open(db.fs, db.dir, s.number, TableOptions.of(db.options),
                BlockCache.disabled(), new StoreCounters());
             InternalIterator it = r.iterator(false)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                builder.add(it.key(), sequence, it.type(), it.valueArray(), it.valueOffset(), it.valueLength());
            }
            t = builder.finish();
        } catch (IOException | RuntimeException | Error e) {
            builder.abandon();
            throw e;
        }
        return new FileMetaData(number, t.fileSize(), t.filterFileSize(), t.smallestUserKey(), t.largestUserKey(),
                t.entries(), t.smallestSeq(), t.largestSeq());
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
