package io.bloomstore.core;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.VerifyReport.CheckedFile;
import io.bloomstore.core.VerifyReport.Problem;
import io.bloomstore.core.VerifyReport.Severity;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads every file of a closed store and checks every checksum and the manifest's consistency,
 * without changing anything: CURRENT names a MANIFEST; every MANIFEST record's CRC and encoding;
 * every table the manifest lists exists with the recorded size, and so does its filter sidecar;
 * every block of every live table ({@link TableReader#verify()}: CRCs, key order, counts) and
 * its sidecar's header, payload and trailer checksums; the table's properties agree with the
 * manifest's record of it; every record of every WAL segment still needed (CRCs, batch encoding,
 * sequence numbers continuing without a gap from the MANIFEST's last sequence, record to record
 * and segment to segment). Leftovers the next open deletes (tables no version references,
 * obsolete WAL segments, stale MANIFESTs, {@code CURRENT.tmp}) and a torn final record of the
 * newest WAL segment holding records (what a crash during a write leaves) are warnings, not
 * damage, and so is a torn tail of an older segment when no later segment holds a seal record (a
 * crash during a memtable switch), as is a gap at the start of a segment when neither it nor a later
 * one holds a seal record; any other torn tail of an older segment is damage. Formats: {@code docs/format/*.md}.
 *
 * <p>The store must not be open: verifying takes the directory's lock, so a store open in this or
 * another process makes it fail with {@link LockedException}; {@link #verifyLive} verifies such a
 * store as of one moment through an image of it.
 *
 * <p>Thread safety: each verification runs on the caller's thread with its own state.
 */
public final class StoreVerifier {
    private final FileSystem fs;
    private final Path dir;
    private final List<CheckedFile> checked = new ArrayList<>();
    private final List<Problem> problems = new ArrayList<>();
    private final Set<Long> referenced = new HashSet<>();
    private final List<Path> wals = new ArrayList<>();
    private Version version;
    private long logNumber;
    private long lastSequence = -1;

    private StoreVerifier(FileSystem fs, Path dir) {
        this.fs = fs;
        this.dir = dir;
    }

    /** Verifies the store in {@code dir} on the real file system. */
    public static VerifyReport verify(Path dir) throws IOException {
        return verify(LocalFileSystem.INSTANCE, dir);
    }

    /**
     * Verifies the store in {@code dir}. Damage is reported in the result, not thrown.
     *
     * @throws IllegalArgumentException when {@code dir} holds no store (no CURRENT file)
     * @throws LockedException when the store is open
     * @throws IOException when the directory cannot be listed or locked
     */
    public static VerifyReport verify(FileSystem fs, Path dir) throws IOException {
        if (fs == null || dir == null) {
            throw new IllegalArgumentException("file system and directory must not be null");
        }
        if (!fs.exists(dir.resolve(FileNames.CURRENT))) {
            throw new IllegalArgumentException("no store at " + dir + ": it has no CURRENT file");
        }
        try (Closeable lock = fs.lock(dir.resolve(FileNames.LOCK))) {
            StoreVerifier v = new StoreVerifier(fs, dir);
            v.run();
            return new VerifyReport(dir, v.checked, v.problems);
        }
    }

    /** As {@link #verifyLive(FileSystem, Path, Path)} on the real file system. */
    public static VerifyReport verifyLive(Path dir, Path scratch) throws IOException {
        return verifyLive(LocalFileSystem.INSTANCE, dir, scratch);
    }

    /**
     * Verifies a store that another process may hold open (where {@link #verify} gets
     * {@link LockedException}), as of one moment, without a lock and without writing in {@code dir}:
     * an image of the store is made in {@code scratch} — its tables and filter sidecars hard-linked
     * (copied across devices), its MANIFEST and the WAL segments that MANIFEST does not cover copied
     * as they were at that moment ({@link io.bloomstore.core.db.LiveImage}) — verified as
     * {@link #verify} verifies a store, and removed. The report names the store's files. A WAL record
     * the writer was still appending at that moment is reported as a torn final record (a warning).
     *
     * @param scratch a missing directory outside {@code dir}, created and deleted again here
     * @throws IllegalArgumentException when {@code dir} holds no store, or {@code scratch} exists or
     *         lies inside it
     */
    public static VerifyReport verifyLive(FileSystem fs, Path dir, Path scratch) throws IOException {
        if (fs == null || dir == null || scratch == null) {
            throw new IllegalArgumentException("file system, directory and scratch directory must not be null");
        }
        if (!fs.exists(dir.resolve(FileNames.CURRENT))) {
            throw new IllegalArgumentException("no store at " + dir + ": it has no CURRENT file");
        }
        if (fs.exists(scratch) || scratch.toAbsolutePath().normalize().startsWith(dir.toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("the scratch directory " + scratch + " must be missing and outside "
                    + dir);
        }
        try {
            io.bloomstore.core.db.LiveImage.make(fs, dir, scratch);
            VerifyReport image = verify(fs, scratch);
            List<CheckedFile> checked = new ArrayList<>();
            for (CheckedFile f : image.checked()) {
                checked.add(new CheckedFile(dir.resolve(f.file().getFileName()), f.kind(), f.bytes(), f.checks()));
            }
            List<Problem> problems = new ArrayList<>();
            for (Problem p : image.problems()) {
                if (p.file().getFileName().toString().equals(FileNames.LOCK)) {
                    continue;
                }
                problems.add(new Problem(dir.resolve(p.file().getFileName()), p.offset(), p.severity(), p.message()));
            }
            return new VerifyReport(dir, checked, problems);
        } finally {
            if (fs.exists(scratch)) {
                for (String name : fs.list(scratch)) {
                    fs.delete(scratch.resolve(name));
                }
                fs.delete(scratch);
            }
        }
    }

    private void run() throws IOException {
        List<String> names = new ArrayList<>(fs.list(dir));
        names.sort(null);
        String manifestName = checkCurrent();
        if (manifestName != null) {
            checkManifest(manifestName);
        }
        if (version != null) {
            for (FileMetaData f : version.allFiles()) {
                checkLiveTable(f);
            }
        }
        for (String name : names) {
            FileNames.Parsed p = FileNames.parse(name);
            Path path = dir.resolve(name);
            if (p == null) {
                warn(path, "not a store file");
                continue;
            }
            switch (p.kind()) {
                case WAL -> {
                    if (version != null && p.number() < logNumber) {
                        warn(path, "obsolete WAL segment (below the manifest's log number " + logNumber
                                + "); the next open deletes it");
                    } else {
                        wals.add(path);
                    }
                }
                case TABLE, FILTER -> {
                    if (version != null && !referenced.contains(p.number())) {
                        warn(path, "not referenced by the manifest (left by an interrupted flush or compaction, or"
                                + " replaced by a compaction shortly before close); the next open deletes it");
                    } else if (version == null && p.kind() == FileNames.Kind.TABLE) {
                        checkTableContents(p.number(), path, null);
                    }
                }
                case MANIFEST -> {
                    if (!name.equals(manifestName)) {
                        warn(path, "stale MANIFEST (CURRENT names " + manifestName + "); the next open deletes it");
                    }
                }
                case TEMP -> warn(path, "left by an interrupted CURRENT update; the next open deletes it");
                case COUNTERS -> {
                    if (name.equals(FileNames.COUNTERS)) {
                        checkCounters(path);
                    }
                }
                default -> {
                }
            }
        }
        checkWals();
    }

    /** Reads CURRENT; returns the MANIFEST name it holds, or null when it is damaged. */
    private String checkCurrent() throws IOException {
        Path path = dir.resolve(FileNames.CURRENT);
        try (RandomReadFile f = fs.openRead(path)) {
            long size = f.size();
            if (size == 0 || size > 256) {
                return error(path, 0, "CURRENT has " + size + " bytes");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            f.readFully(0, buf);
            checked.add(new CheckedFile(path, "CURRENT", size, "names a MANIFEST"));
            String text = new String(buf.array(), StandardCharsets.UTF_8);
            if (!text.endsWith("\n")) {
                return error(path, size, "CURRENT does not end with a newline");
            }
            String name = text.substring(0, text.length() - 1);
            FileNames.Parsed p = FileNames.parse(name);
            if (p == null || p.kind() != FileNames.Kind.MANIFEST) {
                return error(path, 0, "CURRENT does not name a MANIFEST: '" + name + "'");
            }
            if (!fs.exists(dir.resolve(name))) {
                return error(path, 0, "CURRENT names " + name + ", which does not exist");
            }
            return name;
        }
    }

    private void checkManifest(String name) throws IOException {
        Path path = dir.resolve(name);
        try (RandomReadFile f = fs.openRead(path)) {
            LogReader reader = new LogReader(f, path, LogFormat.MANIFEST_MAGIC);
            Version.Builder builder = new Version.Builder();
            long nextFile = 0;
            int records = 0;
            for (byte[] record = reader.next(); record != null; record = reader.next()) {
                VersionEdit edit = VersionEdit.decode(record, path, reader.lastRecordOffset());
                // Every keyspace's tables in one set: their file numbers are the store's, unique.
                String wrong = null;
                for (VersionEdit section : edit.sections()) {
                    wrong = wrong != null ? wrong : builder.apply(section);
                }
                if (wrong != null) {
                    throw new CorruptionException(path, reader.lastRecordOffset(), "edit " + (records + 1) + " " + wrong);
                }
                records++;
                nextFile = edit.nextFileNumber().orElse(nextFile);
                logNumber = edit.logNumber().orElse(logNumber);
                lastSequence = edit.lastSequence().orElse(lastSequence);
            }
            Version v = builder.build();
            if (reader.droppedTailBytes() > 0) {
                warn(path, f.size() - reader.droppedTailBytes(), "torn final edit (" + reader.droppedTailBytes()
                        + " bytes) left by a crash; the next open drops it");
            }
            checked.add(new CheckedFile(path, "MANIFEST", f.size(), records + " edits: every record CRC and field"
                    + (v.rangeTombstones().isEmpty() ? "" : "; " + v.rangeTombstones().size()
                    + " range tombstones, each below the last sequence")));
            if (records == 0) {
                error(path, f.size() - reader.droppedTailBytes(), "holds no complete edit");
            }
            if (reader.droppedTailBytes() > 0 && logNumber > 0 && !fs.exists(FileNames.wal(dir, logNumber))) {
                error(path, f.size() - reader.droppedTailBytes(), "the last readable edit needs WAL segment "
                        + FileNames.wal(dir, logNumber).getFileName() + ", which is missing");
            }
            for (io.bloomstore.core.rangedel.RangeTombstone t : v.rangeTombstones().tombstones()) {
                if (t.sequence() > lastSequence) {
                    error(path, -1, "range tombstone " + t + " is numbered above the last sequence " + lastSequence);
                }
            }
            for (FileMetaData file : v.allFiles()) {
                if (file.fileNumber() >= nextFile) {
                    error(path, -1, "table " + file.fileNumber() + " is numbered at or above the next file number "
                            + nextFile);
                }
            }
            version = v;
        } catch (IOException e) {
            report(path, e);
        }
    }

    private void checkLiveTable(FileMetaData f) throws IOException {
        referenced.add(f.fileNumber());
        Path table = FileNames.table(dir, f.fileNumber());
        Path filter = FileNames.filter(dir, f.fileNumber());
        if (!hasSize(table, f.fileSize())) {
            return;
        }
        if (f.filterFileSize() > 0 && !hasSize(filter, f.filterFileSize())) {
            return;
        }
        if (f.filterFileSize() == 0 && fs.exists(filter)) {
            warn(filter, "the manifest records no filter for table " + f.fileNumber() + "; this sidecar is unused");
        }
        checkTableContents(f.fileNumber(), table, f);
    }

    private boolean hasSize(Path path, long expected) throws IOException {
        if (!fs.exists(path)) {
            error(path, -1, "missing: the manifest lists it with " + expected + " bytes");
            return false;
        }
        long size = fs.size(path);
        if (size != expected) {
            error(path, -1, "has " + size + " bytes; the manifest records " + expected);
            return false;
        }
        return true;
    }

    /** Opens and fully verifies one table; compares it with the manifest's record when given. */
    private void checkTableContents(long number, Path path, FileMetaData recorded) {
        try (TableReader t = TableReader.open(fs, dir, number, TableOptions.defaults(), BlockCache.disabled(),
                new StoreCounters())) {
            t.verify();
            checked.add(new CheckedFile(path, "TABLE", t.metadata().fileSize(), t.properties().dataBlocks()
                    + " data blocks, properties, index and footer: every CRC, key order, entry counts"
                    + (recorded != null ? "; agrees with the manifest" : "")));
            if (t.hasFilter()) {
                checked.add(new CheckedFile(FileNames.filter(dir, number), "FILTER", t.filterBytes(),
                        "header, payload and trailer checksums; kind and key count match the table"));
            }
            if (recorded != null) {
                compare(path, recorded, t.metadata());
            }
        } catch (IOException e) {
            report(path, e);
        }
    }

    private void compare(Path path, FileMetaData m, TableMetadata t) {
        if (m.entries() != t.entries() || m.smallestSeq() != t.smallestSeq() || m.largestSeq() != t.largestSeq()
                || !Arrays.equals(m.smallestKey(), t.smallestUserKey())
                || !Arrays.equals(m.largestKey(), t.largestUserKey())) {
            error(path, -1, "the manifest records " + m + " but the table's properties say " + t.entries()
                    + " entries, sequences " + t.smallestSeq() + ".." + t.largestSeq());
        }
    }

    /** What one WAL segment holds: its sequence range, where a torn tail starts, whether it holds a seal record. */
    private record WalScan(Path path, long first, long last, long tornAt, boolean damaged, boolean sealed) {
        boolean hasRecords() {
            return first >= 0 || damaged;
        }

        /** Written after every older segment was synced, as far as recovery can tell (or damaged: assume so). */
        boolean sealedOrDamaged() {
            return sealed || damaged;
        }
    }

    /**
     * Checks every WAL segment still needed, oldest first, with recovery's rules: every record's
     * CRC and encoding; sequence numbers continuing without a gap from the MANIFEST's last sequence,
     * record to record and segment to segment; a torn final record is a warning only in the newest
     * segment holding records, damage anywhere else.
     */
    private void checkWals() throws IOException {
        List<WalScan> scans = new ArrayList<>();
        for (Path path : wals) {
            scans.add(checkWal(path));
        }
        long previous = lastSequence;
        boolean first = true;
        for (int i = 0; i < scans.size(); i++) {
            WalScan s = scans.get(i);
            if (s.first() >= 0) {
                if (previous >= 0 && (first ? s.first() > previous + 1 : s.first() != previous + 1)) {
                    if (!first && scans.subList(i, scans.size()).stream().noneMatch(WalScan::sealedOrDamaged)) {
                        // As WalReplay: this segment and the later ones were never synced (none holds a
                        // seal record), and a crash kept some of their records but not the older tail.
                        warn(s.path(), -1, "sequence gap after segments never synced (the segment starts at "
                                + s.first() + ", the previous one ended at " + previous + "; a crash while the "
                                + "older one was synced after a memtable switch); recovery drops it and every later "
                                + "segment");
                        return;
                    }
                    error(s.path(), -1, "sequence gap: the segment starts at sequence " + s.first() + " but "
                            + (first ? "the MANIFEST's last sequence is " : "the previous segment ended at ") + previous);
                }
                previous = s.last();
                first = false;
            }
            if (s.tornAt() >= 0) {
                List<WalScan> newer = scans.subList(i + 1, scans.size());
                boolean later = newer.stream().anyMatch(WalScan::hasRecords);
                if (later && newer.stream().anyMatch(WalScan::sealedOrDamaged)) {
                    error(s.path(), s.tornAt(), "damaged final record in a WAL segment followed by newer segments "
                            + "holding records, one of them sealed: writes were lost in between");
                } else if (later) {
                    warn(s.path(), s.tornAt(), "torn final record followed by segments never synced (a crash while "
                            + "this one was synced after a memtable switch); recovery drops it and every later segment");
                    return;
                } else {
                    warn(s.path(), s.tornAt(), "torn final record left by a crash during a write; recovery drops it");
                }
            }
        }
    }

    private WalScan checkWal(Path path) throws IOException {
        long[] first = {-1};
        long previous = -1;
        long segmentFirst = -1;
        try (RandomReadFile f = fs.openRead(path)) {
            LogReader reader = new LogReader(f, path, LogFormat.WAL_MAGIC);
            int records = 0;
            long entries = 0;
            boolean sealed = false;
            for (byte[] record = reader.next(); record != null; record = reader.next()) {
                long offset = reader.lastRecordOffset();
                sealed |= BatchCodec.isSeal(record);
                first[0] = -1;
                long last = BatchCodec.decode(record, path, offset, (key, seq, type, value) -> {
                    if (first[0] < 0) {
                        first[0] = seq;
                    }
                });
                long start = first[0] >= 0 ? first[0] : last + 1;
                if (previous >= 0 && start != previous + 1) {
                    error(path, offset, "sequence gap: the batch starts at sequence " + start
                            + ", not right after the previous batch's " + previous);
                }
                if (segmentFirst < 0) {
                    segmentFirst = start;
                }
                entries += Math.max(0, last - start + 1);
                previous = last;
                records++;
            }
            checked.add(new CheckedFile(path, "WAL", f.size(), records + " batches of " + entries
                    + " operations: every record CRC, batch encoding, sequence numbers without gaps"));
            long tornAt = reader.droppedTailBytes() > 0 ? f.size() - reader.droppedTailBytes() : -1;
            return new WalScan(path, segmentFirst, previous, tornAt, false, sealed);
        } catch (IOException e) {
            report(path, e);
            return new WalScan(path, segmentFirst, previous, -1, true, false);
        }
    }

    private void report(Path path, IOException e) {
        if (e instanceof CorruptionException c) {
            problems.add(new Problem(c.file(), c.offset(), Severity.ERROR, e.getMessage()));
        } else {
            problems.add(new Problem(path, -1, Severity.ERROR, e.getClass().getSimpleName() + ": " + e.getMessage()));
        }
    }

    private String error(Path path, long offset, String message) {
        problems.add(new Problem(path, offset, Severity.ERROR, message));
        return null;
    }

    /** Damaged counters are statistics lost, not data: a warning (the next open starts them at zero). */
    private void checkCounters(Path path) throws IOException {
        try {
            int n = CountersFile.read(fs, path).size();
            checked.add(new CheckedFile(path, "COUNTERS", fs.size(path), n + " counters: CRC and every entry"));
        } catch (CorruptionException e) {
            warn(path, e.offset(), "cumulative counters damaged (" + e.getMessage()
                    + "); the next open starts them again from zero");
        }
    }

    private void warn(Path path, String message) {
        warn(path, -1, message);
    }

    private void warn(Path path, long offset, String message) {
        problems.add(new Problem(path, offset, Severity.WARNING, message));
    }
}
