package io.bloomstore.core.db;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.RepairReport;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.compaction.ShadowedVersions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.rangedel.RangeTombstones;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableProperties;
import io.bloomstore.core.table.TableReader;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import io.bloomstore.core.wal.LogWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of {@link io.bloomstore.core.StoreRepair}, under the store's lock: check every table in
 * the directory (its blocks, then its filter sidecar, rebuilding a damaged sidecar by rewriting the
 * table under its own number), salvage the WAL segments' records up to any damage, read the MANIFEST
 * if one reads whole, then write a new MANIFEST and CURRENT — the MANIFEST's levels when its version
 * names exactly the tables that verify, plus a level-0 table of the WAL records; otherwise every
 * verified table and the WAL records merged into one sorted level — and only then move what the new
 * MANIFEST replaced into {@code lost/}. Damaged files go there too; nothing is deleted. Range
 * tombstones live in the MANIFEST and the WAL only: kept with the MANIFEST's levels, or applied by the
 * merge (those of the MANIFEST's edits up to any damage, and the WAL's).
 *
 * <p>Thread safety: one repair per instance, on the calling thread.
 */
public final class Repairer {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(Repairer.class);
    }
    /** The subdirectory damaged files are moved into. */
    public static final String LOST = "lost";

    private final FileSystem fs;
    private final Path dir;
    private final StoreOptions options;
    private final StoreCounters counters = new StoreCounters(Version.NUM_LEVELS);
    private final List<String> kept = new ArrayList<>();
    private final List<String> rebuilt = new ArrayList<>();
    private final List<String> lost = new ArrayList<>();
    private final List<String> archived = new ArrayList<>();
    /** Tables that do not verify, with their entry counts (-1 when unreadable). */
    private final Map<Long, Long> damaged = new TreeMap<>();
    /** Files the new MANIFEST makes garbage: moved into {@code lost/} once it is durable. */
    private final List<Path> replaced = new ArrayList<>();
    private long keysLost;
    private int tablesOfUnknownSize;
    private long walEntries;
    private long walBytesDropped;
    private long nextNumber = 1;
    private long lastSequence;
    /**
     * The range tombstones of the MANIFEST's edits read before any damage: a damaged MANIFEST loses
     * its tables' levels but not the deletions it recorded (the tables are merged under them).
     */
    private final Map<Long, RangeTombstone> manifestTombstones = new TreeMap<>();

    private Repairer(FileSystem fs, Path dir, StoreOptions options) {
        this.fs = fs;
        this.dir = dir;
        this.options = options;
    }

    public static RepairReport repair(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        if (!fs.exists(dir)) {
            throw new IllegalArgumentException("no store at " + dir + ": the directory does not exist");
        }
        List<String> names = new ArrayList<>(fs.list(dir));
        if (names.stream().map(FileNames::parse).noneMatch(p -> p != null && p.kind() != FileNames.Kind.LOCK)) {
            throw new IllegalArgumentException(dir + " holds no BloomStore files: nothing to repair");
        }
        try (Closeable lock = fs.lock(dir.resolve(FileNames.LOCK))) {
            refuseKeyspaces(fs, dir);
            return new Repairer(fs, dir, options).run(fs.list(dir));
        }
    }

    /**
     * Refuses a store whose MANIFEST names keyspaces besides the default one: a table does not
     * record its keyspace, so a rebuild from the tables would put every keyspace's keys into the
     * default one. Nothing is changed; a store whose MANIFEST cannot be read is repaired as one
     * keyspace.
     */
    private static void refuseKeyspaces(FileSystem fs, Path dir) throws IOException {
        VersionSet vs;
        try {
            vs = VersionSet.recoverReadOnly(fs, dir);
        } catch (IOException | RuntimeException unreadable) {
            return;
        }
        try {
            if (vs.nextKeyspaceId() > 1) {
                throw new UnsupportedOperationException("the store in " + dir + " has keyspaces besides the default one "
                        + "(" + vs.keyspaces().size() + " now): repair rebuilds only single-keyspace stores, since a "
                        + "table does not record its keyspace; nothing was changed (restore a backup or checkpoint)");
            }
        } finally {
            vs.close();
        }
    }

    private RepairReport run(List<String> names) throws IOException {
        names.sort(null);
        List<Long> tables = new ArrayList<>();
        List<Long> wals = new ArrayList<>();
        for (String name : names) {
            FileNames.Parsed p = FileNames.parse(name);
            if (p == null) {
                continue;
            }
            nextNumber = Math.max(nextNumber, p.number() + 1);
            if (p.kind() == FileNames.Kind.TABLE) {
                tables.add(p.number());
            } else if (p.kind() == FileNames.Kind.WAL) {
                wals.add(p.number());
            }
        }
        RepairManifest manifest = RepairManifest.read(fs, dir, names, manifestTombstones, f -> lose(f, 0));
        // Every table is checked, whatever the MANIFEST says: one it does not name may hold data
        // it lacks (a flush or compaction after the MANIFEST was copied, a stale MANIFEST).
        Map<Long, FileMetaData> good = new TreeMap<>();
        for (long n : tables) {
            FileMetaData f = checkTable(n);
            if (f != null) {
                good.put(n, f);
            }
        }
        // The MANIFEST's levels are kept only when they describe exactly the tables that verify:
        // then no table outside its version can hold anything it lacks. Otherwise every table
        // that verifies and every WAL record are merged, the newest version of each key (by
        // sequence number) winning, as RepairDB rebuilds whatever the MANIFEST says.
        boolean keepLevels = manifest != null && manifest.describesExactly(good.keySet());
        for (Map.Entry<Long, Long> d : damaged.entrySet()) {
            Path table = FileNames.table(dir, d.getKey());
            if (keepLevels) {
                // Not in the version (which names exactly the tables that verify): an unfinished
                // output of a flush or compaction whose edit was never logged. Nothing it held is
                // missing from the version.
                archive(table);
                archive(FileNames.filter(dir, d.getKey()));
            } else {
                tablesOfUnknownSize += d.getValue() < 0 ? 1 : 0;
                lose(table, Math.max(0, d.getValue()));
                lose(FileNames.filter(dir, d.getKey()), 0);
            }
        }
        MemTable salvaged = new MemTable(0);
        for (long n : wals) {
            if (manifest == null || n >= manifest.logNumber()) {
                salvageWal(n, salvaged);
            } else {
                // Below the log number of a MANIFEST that reads whole: flushed into its tables
                // (or their compactions' outputs) long ago; replaying it could bring back keys
                // deleted since.
                replaced.add(FileNames.wal(dir, n));
            }
        }
        Version version;
        if (keepLevels) {
            lastSequence = Math.max(lastSequence, manifest.lastSequence());
            VersionEdit edit = new VersionEdit();
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (FileMetaData f : manifest.version().files(level)) {
                    edit.addFile(level, good.get(f.fileNumber()));
                }
            }
            if (!salvaged.isEmpty()) {
                // The WAL holds the newest writes: a level-0 table numbered above every other.
                List<FileMetaData> out = writeMerged(List.of(salvaged.iterator()), false, Long.MAX_VALUE,
                        RangeTombstones.EMPTY);
                out.forEach(f -> edit.addFile(0, f));
            }
            // Range tombstones live in the MANIFEST and the WAL only: both sets are kept.
            for (RangeTombstone t : manifest.version().rangeTombstones().tombstones()) {
                edit.addRangeTombstone(t);
            }
            for (RangeTombstone t : salvaged.rangeDeletions()) {
                edit.addRangeTombstone(t);
            }
            version = Version.empty().apply(edit);
        } else {
            if (manifest != null) {
                lastSequence = Math.max(lastSequence, manifest.lastSequence());
                noteMissing(manifest);
            }
            version = mergeEverything(good, salvaged);
        }
        // The repaired MANIFEST's log number names a real, empty segment: should the first edit
        // after the repair be torn, recovery falls back to this MANIFEST and finds its segment.
        long logNumber = nextNumber++;
        writeEmptyWal(logNumber);
        long manifestNumber = VersionSet.writeRepaired(fs, dir, version, logNumber, lastSequence, nextNumber);
        // The new MANIFEST is durable: what it replaced is set aside, never deleted.
        for (Path p : replaced) {
            archive(p);
        }
        for (String name : fs.list(dir)) {
            FileNames.Parsed p = FileNames.parse(name);
            if (p != null && (p.kind() == FileNames.Kind.MANIFEST && p.number() != manifestNumber
                    || p.kind() == FileNames.Kind.TEMP)) {
                archive(dir.resolve(name));
            }
        }
        checkCounters();
        if (fs.exists(dir.resolve(LOST))) {
            fs.syncDirectory(dir.resolve(LOST));
        }
        fs.syncDirectory(dir);
        RepairReport report = new RepairReport(dir, kept, rebuilt, lost, keysLost, tablesOfUnknownSize, walEntries,
                walBytesDropped, keepLevels, lastSequence, archived);
        Log.LOG.info("Repaired {}: kept {} tables, rebuilt {}, lost {} files ({} keys), salvaged {} WAL entries,"
                        + " set aside {} files it no longer needs", dir, kept.size(), rebuilt.size(), lost.size(),
                keysLost, walEntries, archived.size());
        return report;
    }

    /**
     * Reports the tables the MANIFEST names that are not in the directory. Their keys may live on
     * in tables it does not name (a compaction's outputs, when the MANIFEST is older than the
     * tables): the merge keeps whatever verifies, so no key count can be given.
     */
    private void noteMissing(RepairManifest manifest) {
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : manifest.version().files(level)) {
                String name = FileNames.table(dir, f.fileNumber()).getFileName().toString();
                if (!fs.exists(FileNames.table(dir, f.fileNumber())) && !lost.contains(name)) {
                    lost.add(name + " (missing)");
                }
            }
        }
    }

    /** Writes WAL segment {@code n} with its header only, durably. */
    private void writeEmptyWal(long n) throws IOException {
        try (LogWriter w = new LogWriter(fs.create(FileNames.wal(dir, n)), LogFormat.WAL_MAGIC)) {
            w.sync();
        }
    }

    /**
     * Checks table {@code n}: its blocks, then its sidecar. Returns its metadata when it is kept
     * (rebuilt under the same number when only the sidecar was bad), null when it is lost.
     */
    private FileMetaData checkTable(long n) throws IOException {
        Path table = FileNames.table(dir, n);
        Path filter = FileNames.filter(dir, n);
        TableReader r;
        try {
            r = TableReader.openWithoutFilter(fs, dir, n, TableOptions.of(options), counters);
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("repair: table {} does not open: {}", table, e.toString());
            damaged.put(n, -1L);
            return null;
        }
        TableMetadata t;
        boolean sidecarBad = false;
        TableProperties props = r.properties();
        try {
            boolean verified = true;
            try {
                r.verify();
            } catch (IOException | RuntimeException e) {
                Log.LOG.warn("repair: table {} does not verify: {}", table, e.toString());
                verified = false;
            }
            if (!verified) {
                r.close();
                damaged.put(n, props.entries());
                return null;
            }
            lastSequence = Math.max(lastSequence, props.largestSeq());
            t = r.metadata();
            if (props.filterKind() != null) {
                try {
                    TableReader.verifyFilter(fs, dir, n, props);
                } catch (IOException | RuntimeException e) {
                    Log.LOG.warn("repair: filter sidecar of table {} is damaged or missing ({}); rebuilding it", table,
                            e.toString());
                    sidecarBad = true;
                    t = rewrite(r, props);
                }
            }
        } finally {
            r.close();
        }
        if (!sidecarBad) {
            kept.add(table.getFileName().toString());
            return meta(t);
        }
        // The table verified: its copy, with a fresh sidecar, takes its number (and so its place).
        lose(filter, 0);
        fs.rename(FileNames.table(dir, t.fileNumber()), table);
        fs.rename(FileNames.filter(dir, t.fileNumber()), filter);
        rebuilt.add(table.getFileName().toString());
        return new FileMetaData(n, t.fileSize(), t.filterFileSize(), t.smallestUserKey(), t.largestUserKey(),
                t.entries(), t.smallestSeq(), t.largestSeq());
    }

    /** Copies every entry of {@code r} into a new table with the filter its properties record. */
    private TableMetadata rewrite(TableReader r, TableProperties props) throws IOException {
        TableOptions opts = TableOptions.of(options).withFilter(props.filterKind(), props.bitsPerKey());
        TableBuilder b = new TableBuilder(fs, dir, nextNumber++, opts);
        try (InternalIterator it = r.iterator(false)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                b.add(it.key(), it.sequence(), it.type(), it.value());
            }
            return b.finish();
        } catch (IOException | RuntimeException e) {
            b.abandon();
            throw e;
        }
    }

    /** Reads WAL segment {@code n}'s records into {@code mem} up to any damage; a damaged segment goes to {@code lost/}. */
    private void salvageWal(long n, MemTable mem) throws IOException {
        Path path = FileNames.wal(dir, n);
        long size = fs.size(path);
        boolean damaged = false;
        try (RandomReadFile f = fs.openRead(path)) {
            LogReader reader = new LogReader(f, path, LogFormat.WAL_MAGIC);
            try {
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    List<Object[]> entries = new ArrayList<>();
                    long last = BatchCodec.decode(record, path, reader.lastRecordOffset(),
                            (key, seq, type, value) -> entries.add(new Object[] {key, seq, type, value}));
                    // Only whole batches: a batch is atomic.
                    for (Object[] e : entries) {
                        mem.add((byte[]) e[0], (Long) e[1], (ValueType) e[2], (byte[]) e[3]);
                    }
                    walEntries += entries.size();
                    lastSequence = Math.max(lastSequence, last);
                }
                walBytesDropped += reader.droppedTailBytes();
            } catch (CorruptionException e) {
                damaged = true;
                walBytesDropped += size - e.offset();
                Log.LOG.warn("repair: WAL segment {} is damaged at offset {}; its records before the damage are kept",
                        path, e.offset());
            }
        } catch (CorruptionException e) {
            // The header itself is damaged: nothing in the segment can be trusted.
            damaged = true;
            walBytesDropped += size;
        }
        if (damaged) {
            lose(path, 0);
        } else {
            replaced.add(path);
        }
    }

    /**
     * Without a MANIFEST: merges every kept table and the salvaged WAL entries into new tables of
     * level 1, newest version of each key winning and deletions dropped (nothing lies below), as a
     * full compaction. The originals are replaced.
     */
    private Version mergeEverything(Map<Long, FileMetaData> good, MemTable salvaged) throws IOException {
        List<TableReader> readers = new ArrayList<>();
        List<InternalIterator> sources = new ArrayList<>();
        try {
            for (long n : good.keySet()) {
                TableReader r = TableReader.openWithoutFilter(fs, dir, n, TableOptions.of(options), counters);
                readers.add(r);
                sources.add(r.iterator(false));
                replaced.add(FileNames.table(dir, n));
                replaced.add(FileNames.filter(dir, n));
            }
            sources.add(salvaged.iterator());
            kept.clear();
            // Every table is merged into the bottom level: the range tombstones (the MANIFEST's, as far
            // as it reads, and the WAL's) are applied by the merge and need not be kept.
            List<RangeTombstone> tombstones = new ArrayList<>(manifestTombstones.values());
            tombstones.addAll(salvaged.rangeDeletions());
            VersionEdit edit = new VersionEdit();
            for (FileMetaData f : writeMerged(sources, true, options.targetFileBytes(), RangeTombstones.of(tombstones))) {
                edit.addFile(1, f);
            }
            return Version.empty().apply(edit);
        } finally {
            for (InternalIterator it : sources) {
                it.close();
            }
            for (TableReader r : readers) {
                r.close();
            }
        }
    }

    /**
     * Merges {@code sources} into new tables of about {@code targetBytes} each; with
     * {@code bottommost}, versions no reader can see and deletions are dropped.
     */
    private List<FileMetaData> writeMerged(List<InternalIterator> sources, boolean bottommost, long targetBytes,
                                           RangeTombstones tombstones) throws IOException {
        MergingIterator merged = MergingIterator.forward(sources, null);
        ShadowedVersions shadowed = new ShadowedVersions(new long[0], bottommost, tombstones);
        List<FileMetaData> out = new ArrayList<>();
        TableBuilder b = null;
        byte[] lastKey = null;
        try {
            for (; merged.valid(); merged.advance()) {
                InternalIterator it = merged.current();
                byte[] key = it.key();
                if (!shadowed.keep(key, it.sequence(), it.type())) {
                    continue;
                }
                // A user key's versions stay in one table: a level's tables must not share a key.
                if (b != null && b.fileSize() >= targetBytes && !Arrays.equals(lastKey, key)) {
                    out.add(finish(b));
                    b = null;
                }
                if (b == null) {
                    b = new TableBuilder(fs, dir, nextNumber++, TableOptions.of(options));
                }
                b.add(key, it.sequence(), it.type(), it.value());
                lastKey = key;
            }
            if (b != null) {
                out.add(finish(b));
                b = null;
            }
        } finally {
            if (b != null) {
                b.abandon();
            }
        }
        return out;
    }

    private FileMetaData finish(TableBuilder b) throws IOException {
        TableMetadata t = b.finish();
        rebuilt.add(FileNames.table(dir, t.fileNumber()).getFileName().toString());
        lastSequence = Math.max(lastSequence, t.largestSeq());
        return meta(t);
    }

    private static FileMetaData meta(TableMetadata t) {
        return new FileMetaData(t.fileNumber(), t.fileSize(), t.filterFileSize(), t.smallestUserKey(),
                t.largestUserKey(), t.entries(), t.smallestSeq(), t.largestSeq());
    }

    /** The COUNTERS file holds statistics only: a damaged one goes to {@code lost/} and counting starts again. */
    private void checkCounters() throws IOException {
        Path counters = dir.resolve(FileNames.COUNTERS);
        if (!fs.exists(counters)) {
            return;
        }
        try {
            CountersFile.read(fs, counters);
        } catch (IOException | RuntimeException e) {
            lose(counters, 0);
        }
    }

    /** Moves a file that does not verify into {@code lost/}, counting the keys it held. */
    private void lose(Path file, long keys) throws IOException {
        if (moveToLost(file)) {
            lost.add(file.getFileName().toString());
            keysLost += keys;
        }
    }

    /**
     * Moves a file the repaired store no longer needs (a table merged into new ones, a WAL segment
     * written into a table, an old MANIFEST, a table outside the version) into {@code lost/}:
     * repair deletes nothing.
     */
    private void archive(Path file) throws IOException {
        if (moveToLost(file)) {
            archived.add(file.getFileName().toString());
        }
    }

    private boolean moveToLost(Path file) throws IOException {
        if (!fs.exists(file)) {
            return false;
        }
        Path lostDir = dir.resolve(LOST);
        fs.createDirectories(lostDir);
        Path target = lostDir.resolve(file.getFileName());
        for (int i = 1; fs.exists(target); i++) {
            target = lostDir.resolve(file.getFileName() + "." + i);
        }
        fs.rename(file, target);
        return true;
    }
}
