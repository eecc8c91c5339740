package io.bloomstore.core.db;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableFileNames;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One view of a secondary ({@link SecondaryDb}): the primary's tables as of one MANIFEST, held as
 * a read-only {@link DbImpl} over a directory of its own under the scratch directory, where the
 * version's tables and filter sidecars are hard-linked (or copied), with the WAL the MANIFEST does
 * not cover read into its memtable ({@link WalTail}) — as of the moment it was made, then read on
 * by each catch-up while that MANIFEST stays the primary's ({@link #readOn}).
 *
 * <p>How a view is made consistent without any lock on the primary ({@link #make}): the MANIFEST's
 * number and size are noted, the MANIFEST is read, the WAL segments from its log number on are
 * opened (an open descriptor keeps reading a segment the primary deletes), and then the MANIFEST's
 * number and size are checked again. The primary deletes a WAL segment only after a MANIFEST edit
 * has made it obsolete, so when the MANIFEST did not change, the segments opened are every one the
 * version needs. Then the version's tables are linked; a table deleted meanwhile (a compaction
 * replaced it), like a MANIFEST that changed, a MANIFEST edit still being written or a MANIFEST
 * rolled away, makes the attempt fail with {@link Moved} or the file system's
 * {@code NoSuchFileException}, and the caller tries again.
 *
 * <p>Users: the secondary's current view reference, and every read, iterator and snapshot in
 * progress on it, count as users; when the last lets go, the {@code DbImpl} is closed and the
 * view's directory deleted ({@link #release()}).
 *
 * <p>Thread safety: {@link #tryAcquire()} and {@link #release()} from any thread; {@link #make} and
 * {@link #readOn} on one thread at a time (the secondary's catch-up lock), beside any readers.
 */
final class SecondaryView {
    /** The logger, made on first use. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(SecondaryView.class);
    }

    /** Thrown by {@link #make} when the primary's MANIFEST changed while a view was being made. */
    static final class Moved extends IOException {
        Moved(String message) {
            super(message);
        }
    }

    /**
     * What a view was made from: the MANIFEST's name and size and each WAL segment's number and
     * size. When the primary's present has the same, a catch-up has nothing to do.
     */
    record Fingerprint(String manifest, long manifestBytes, List<Long> walSizes) {
        boolean sameManifest(Fingerprint o) {
            return manifest.equals(o.manifest) && manifestBytes == o.manifestBytes;
        }

        /** Reads {@code CURRENT}, the MANIFEST's size and the WAL segments' sizes (number, size pairs). */
        static Fingerprint read(FileSystem fs, Path primary, boolean withWals) throws IOException {
            String manifest = new String(readAll(fs, primary.resolve(FileNames.CURRENT)),
                    java.nio.charset.StandardCharsets.UTF_8).trim();
            long bytes = fs.size(primary.resolve(manifest));
            List<Long> wals = new ArrayList<>();
            if (withWals) {
                List<String> names = new ArrayList<>(fs.list(primary));
                Collections.sort(names);
                for (String name : names) {
                    FileNames.Parsed p = FileNames.parse(name);
                    if (p != null && p.kind() == FileNames.Kind.WAL) {
                        wals.add(p.number());
                        wals.add(fs.size(primary.resolve(name)));
                    }
                }
            }
            return new Fingerprint(manifest, bytes, wals);
        }
    }

    /** A small file's bytes (CURRENT): a rename replaces it whole, so one read sees one version. */
    private static byte[] readAll(FileSystem fs, Path file) throws IOException {
        try (io.bloomstore.core.fs.RandomReadFile f = fs.openRead(file)) {
            long size = f.size();
            if (size == 0 || size > 256) {
                throw new io.bloomstore.bloom.CorruptionException(file, 0, "CURRENT has " + size + " bytes");
            }
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate((int) size);
            f.readFully(0, buf);
            return buf.array();
        }
    }

    /** The view's lock: none (a secondary takes no lock on the primary, and its scratch lock is its own). */
    private static final class NoLock implements Closeable {
        @Override
        public void close() {
        }
    }

    final DbImpl db;
    final Path dir;
    private final FileSystem fs;
    private final Path primary;
    /** The WAL read so far into the view's memtable; read on by {@link #readOn} (catch-ups, one at a time). */
    private final WalTail tail;
    /** The MANIFEST's log number: the oldest WAL segment the view reads. */
    private final long logNumber;
    /** The primary's files as the last catch-up (or the make) found them before reading. */
    private volatile Fingerprint fingerprint;
    private volatile long lastSequence;
    private final AtomicInteger users = new AtomicInteger(1);

    private SecondaryView(FileSystem fs, Path primary, DbImpl db, Path dir, Fingerprint fingerprint, WalTail tail,
                          long logNumber) {
        this.fs = fs;
        this.primary = primary;
        this.db = db;
        this.dir = dir;
        this.fingerprint = fingerprint;
        this.tail = tail;
        this.logNumber = logNumber;
        this.lastSequence = tail.lastSequence();
    }

    /** What the view was made from, or last caught up to. */
    Fingerprint fingerprint() {
        return fingerprint;
    }

    /** The sequence number of the last write the view holds. */
    long lastSequence() {
        return lastSequence;
    }

    /**
     * A catch-up without a new view, when the primary's MANIFEST is still the one of {@code now}
     * and of this view: reads on in the WAL from where the last read stopped (the segment the view
     * was in, then newer ones) into the view's memtable, and publishes what it read. The primary
     * deletes a segment only after a MANIFEST edit has made it obsolete, so every segment the
     * MANIFEST needs is still there; one that is gone (the MANIFEST changed since {@code now} was
     * read) or shorter than what was read of it makes this return false, having published
     * nothing new, and the caller makes a new view.
     *
     * @return whether the view now holds what {@code now} shows
     */
    boolean readOn(Fingerprint now) throws IOException {
        List<WalTail.Segment> segments = new ArrayList<>();
        try {
            long from = Math.max(logNumber, tail.segment());
            List<Long> walSizes = now.walSizes();
            for (int i = 0; i < walSizes.size(); i += 2) {
                long n = walSizes.get(i);
                if (n >= from) {
                    Path path = FileNames.wal(primary, n);
                    segments.add(new WalTail.Segment(n, path, fs.openRead(path)));
                }
            }
            segments.sort(java.util.Comparator.comparingLong(WalTail.Segment::number));
            if (tail.segment() >= 0 && (segments.isEmpty() || segments.get(0).number() != tail.segment()
                    || segments.get(0).file().size() < tail.offset())) {
                return false;
            }
            tail.readOn(segments);
        } catch (java.nio.file.NoSuchFileException e) {
            return false;
        } finally {
            closeAll(segments);
        }
        db.publishReplayed(tail.lastSequence(), tail.takeRangeDeletions());
        lastSequence = tail.lastSequence();
        fingerprint = now;
        return true;
    }

    /**
     * One attempt at a view of {@code primary} in the new directory {@code viewDir}. Tables the
     * {@code previous} view holds are linked from its directory (no copy even across devices, and
     * immune to the primary deleting them). On failure removes what it put in {@code viewDir}.
     *
     * @throws Moved when the MANIFEST changed meanwhile
     * @throws java.nio.file.NoSuchFileException when the primary deleted a file the attempt needed
     */
    static SecondaryView make(FileSystem fs, Path primary, Path viewDir, StoreOptions options, SecondaryView previous)
            throws IOException {
        Fingerprint before = Fingerprint.read(fs, primary, true);
        VersionSet versions = VersionSet.recoverReadOnly(fs, primary);
        List<WalTail.Segment> segments = new ArrayList<>();
        TableRegistry tables = null;
        DbImpl db = null;
        boolean made = false;
        try {
            List<Long> wals = new ArrayList<>();
            for (String name : fs.list(primary)) {
                FileNames.Parsed p = FileNames.parse(name);
                if (p != null && p.kind() == FileNames.Kind.WAL && p.number() >= versions.logNumber()) {
                    wals.add(p.number());
                }
            }
            Collections.sort(wals);
            for (long n : wals) {
                Path path = FileNames.wal(primary, n);
                segments.add(new WalTail.Segment(n, path, fs.openRead(path)));
            }
            Fingerprint after = Fingerprint.read(fs, primary, false);
            if (!before.sameManifest(after)) {
                throw new Moved("the MANIFEST of " + primary + " changed while a view was made");
            }
            fs.createDirectories(viewDir);
            // The view's own lock file: the read-only store's close adds its counters under it.
            fs.create(viewDir.resolve(FileNames.LOCK)).close();
            for (FileMetaData f : versions.allLiveFiles()) {
                link(fs, primary, viewDir, previous, TableFileNames.table(f.fileNumber()));
                if (f.filterFileSize() > 0) {
                    link(fs, primary, viewDir, previous, TableFileNames.filter(f.fileNumber()));
                }
            }
            WalTail tail = new WalTail(versions.lastSequence(), versions.logNumber(), versions.keyspaces().keySet(),
                    StoreOpener.keyspaceLogNumbers(versions));
            tail.readOn(segments);
            closeAll(segments);
            StoreCounters counters = new StoreCounters(Version.NUM_LEVELS);
            List<String> listing = fs.list(viewDir);
            tables = StoreOpener.openTables(fs, viewDir, options, counters, versions, false, listing);
            CountersFile cumulative = CountersFile.open(fs, viewDir, counters);
            long logNumber = versions.logNumber();
            db = new DbImpl(fs, viewDir, options, counters, cumulative, versions, tables, new NoLock(),
                    logNumber, null, tail.lastSequence());
            db.finishRecovery(tail.memtable(), tail.keyspaceMemtables(), null, DbFlush.Recovery.KEEP_IN_WAL, listing);
            db.joinResources();
            made = true;
            return new SecondaryView(fs, primary, db, viewDir, before, tail, logNumber);
        } finally {
            if (!made) {
                closeAll(segments);
                abandon(fs, db, tables, versions, viewDir);
            }
        }
    }

    private static void link(FileSystem fs, Path primary, Path viewDir, SecondaryView previous, String name)
            throws IOException {
        Path from = previous != null && fs.exists(previous.dir.resolve(name)) ? previous.dir.resolve(name)
                : primary.resolve(name);
        fs.linkOrCopy(from, viewDir.resolve(name));
    }

    private static void closeAll(List<WalTail.Segment> segments) {
        for (WalTail.Segment s : segments) {
            try {
                s.file().close();
            } catch (IOException | RuntimeException e) {
                Log.LOG.debug("closing {}: {}", s.path(), e.toString());
            }
        }
        segments.clear();
    }

    /** Lets go of what a failed attempt took; failures are logged, the attempt's own failure is what counts. */
    private static void abandon(FileSystem fs, DbImpl db, TableRegistry tables, VersionSet versions, Path viewDir) {
        try {
            if (db != null) {
                db.close();
            } else {
                if (tables != null) {
                    tables.closeAll();
                }
                versions.close();
            }
        } catch (IOException | RuntimeException e) {
            Log.LOG.debug("abandoning a view of {}: {}", viewDir, e.toString());
        }
        deleteDirectory(fs, viewDir);
    }

    /** Adds a user unless the last one has gone (then the view is closed: take the secondary's current one). */
    boolean tryAcquire() {
        for (;;) {
            int n = users.get();
            if (n <= 0) {
                return false;
            }
            if (users.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Lets go of one use; the last closes the view's store and deletes its directory. */
    void release() {
        if (users.decrementAndGet() == 0) {
            try {
                db.close();
            } catch (IOException | RuntimeException e) {
                Log.LOG.warn("closing the secondary view in {}: {}", dir, e.toString());
            }
            deleteDirectory(fs, dir);
        }
    }

    /** Whether the view has been closed (its last user let go). */
    boolean released() {
        return users.get() <= 0;
    }

    /** Deletes {@code dir} and the files in it (links: the primary's names are untouched); failures are logged. */
    static void deleteDirectory(FileSystem fs, Path dir) {
        try {
            if (!fs.exists(dir)) {
                return;
            }
            for (String name : fs.list(dir)) {
                fs.delete(dir.resolve(name));
            }
            fs.delete(dir);
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("could not remove the secondary view directory {}: {}", dir, e.toString());
        }
    }
}
