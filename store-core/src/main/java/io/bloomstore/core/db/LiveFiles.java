package io.bloomstore.core.db;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.memtable.MemTable;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The files that hold an open store's state as of one moment, kept on disk while a checkpoint or
 * backup copies them: the tables and filter sidecars of the version readers saw at that moment
 * (referenced, so compactions replacing them cannot delete them) and the WAL segments that hold
 * the memtables' writes, each to its length at that moment (pinned against obsolete-file deletion
 * by {@link FilePins}). The MANIFEST is not copied: {@link #writeManifest} writes a fresh one that
 * names exactly these tables.
 *
 * <p>The moment is a write barrier ({@link WriteQueue#submitBarrier}): every write acknowledged
 * before the capture began is in the WAL by then, none is half-written, and the state the files
 * hold is the version plus the WAL up to that point — a prefix of the store's history that
 * includes every acknowledged write.
 *
 * <p>Thread safety: one thread uses an instance; {@link #close()} releases what it holds, once.
 */
public final class LiveFiles implements Closeable {
    /** What a live file is. */
    public enum Kind { TABLE, FILTER, WAL }

    /** One file: its name in the store directory, its path there, and how many bytes belong to the moment. */
    public record LiveFile(Kind kind, String name, Path source, long length) {
    }

    private final DbState db;
    private final ReadView view;
    /** The other keyspaces' views (retained), with their numbers and names. */
    private final List<ReadView> keyspaceViews;
    private final List<DbState> keyspaces;
    private final int nextKeyspaceId;
    /** Per keyspace, the oldest WAL segment its captured memtables need (a store with keyspaces only). */
    private final java.util.Map<Integer, Long> keyspaceLogNumbers;
    private final long pin;
    private final long logNumber;
    private final long lastSequence;
    private final long nextFileNumber;
    private final List<LiveFile> files;
    private boolean closed;

    private LiveFiles(DbState db, ReadView view, List<DbState> keyspaces, List<ReadView> keyspaceViews,
                      int nextKeyspaceId, java.util.Map<Integer, Long> keyspaceLogNumbers, long pin, long logNumber,
                      long lastSequence, long nextFileNumber, List<LiveFile> files) {
        this.keyspaceLogNumbers = keyspaceLogNumbers;
        this.db = db;
        this.view = view;
        this.keyspaces = keyspaces;
        this.keyspaceViews = keyspaceViews;
        this.nextKeyspaceId = nextKeyspaceId;
        this.pin = pin;
        this.logNumber = logNumber;
        this.lastSequence = lastSequence;
        this.nextFileNumber = nextFileNumber;
        this.files = Collections.unmodifiableList(files);
    }

    /** Captures the live files of {@code db} at a write barrier; the caller closes the result. */
    static LiveFiles capture(DbState db) throws IOException {
        db.checkOpen();
        db.checkWritable();
        ReadView[] view = new ReadView[1];
        List<DbState> others = new ArrayList<>();
        List<ReadView> otherViews = new ArrayList<>();
        java.util.Map<Integer, Long> logs = new java.util.HashMap<>();
        long[] numbers = new long[5];
        List<LiveFile> wals = new ArrayList<>();
        db.queue.submitBarrier(group -> {
            // Mutex held, no group writing: every acknowledged write is in the WAL files, and
            // their sizes are those of this moment. The listing and sizes take a few system
            // calls; writers wait for them, as for a memtable switch.
            // Records writes left in the process (walBufferBytes) go to the file before its size is taken.
            if (db.root.wal != null) {
                db.root.wal.flushBuffered();
            }
            // The oldest segment any keyspace's unflushed memtables need.
            long floor = Long.MAX_VALUE;
            for (DbState k : db.root.keyspaces) {
                ReadView kv = k.view;
                MemTable oldest = kv.immutables().isEmpty() ? kv.mem() : kv.immutables().get(0);
                floor = Math.min(floor, oldest.logNumber());
                if (db.root.keyspaces.length > 1) {
                    // The copy's replay passes over each keyspace's records its captured tables hold.
                    logs.put(k.keyspaceId, oldest.logNumber());
                }
            }
            List<Long> numbersFound = new ArrayList<>();
            for (String name : db.fs.list(db.dir)) {
                FileNames.Parsed p = FileNames.parse(name);
                if (p != null && p.kind() == FileNames.Kind.WAL && p.number() >= floor) {
                    numbersFound.add(p.number());
                }
            }
            Collections.sort(numbersFound);
            for (long n : numbersFound) {
                Path wal = FileNames.wal(db.dir, n);
                wals.add(new LiveFile(Kind.WAL, wal.getFileName().toString(), wal, db.fs.size(wal)));
            }
            numbers[0] = floor;
            numbers[1] = db.root.lastSequence;
            numbers[2] = db.versions.newFileNumber();
            // Nothing below throws: the view and the pin are the caller's to release from here.
            view[0] = db.retainView();
            for (DbState k : db.root.keyspaces) {
                if (k != db) {
                    others.add(k);
                    otherViews.add(k.retainView());
                }
            }
            numbers[4] = db.versions.nextKeyspaceId();
            numbers[3] = db.pins.pinWal(floor);
        });
        ReadView v = view[0];
        List<LiveFile> files = new ArrayList<>();
        List<FileMetaData> tables = new ArrayList<>(v.version().allFiles());
        for (ReadView kv : otherViews) {
            tables.addAll(kv.version().allFiles());
        }
        for (FileMetaData f : tables) {
            Path table = FileNames.table(db.dir, f.fileNumber());
            files.add(new LiveFile(Kind.TABLE, table.getFileName().toString(), table, f.fileSize()));
            if (f.filterFileSize() > 0) {
                Path filter = FileNames.filter(db.dir, f.fileNumber());
                files.add(new LiveFile(Kind.FILTER, filter.getFileName().toString(), filter, f.filterFileSize()));
            }
        }
        files.addAll(wals);
        return new LiveFiles(db, v, others, otherViews, (int) numbers[4], logs, numbers[3], numbers[0], numbers[1],
                numbers[2], files);
    }

    /** The tables, filter sidecars and WAL segments, tables first, WAL segments oldest first. */
    public List<LiveFile> files() {
        return files;
    }

    /** The last sequence number acknowledged at the moment (the WAL copies may hold a few more). */
    public long lastSequence() {
        return lastSequence;
    }

    /** The tables of the moment's version. */
    public Version version() {
        return view.version();
    }

    /** The store directory the files are in. */
    public Path storeDir() {
        return db.dir;
    }

    /** The file system the store's files are in. */
    public FileSystem fileSystem() {
        return db.fs;
    }

    /**
     * Writes into {@code dir} a fresh MANIFEST naming the moment's tables, then {@code CURRENT}
     * naming it, durably: the last step of a copy, after its tables and WAL segments are in place.
     * Returns the MANIFEST's file name.
     */
    public String writeManifest(FileSystem fs, Path dir) throws IOException {
        java.util.Map<Integer, VersionSet.Keyspace> ks = new java.util.TreeMap<>();
        for (int i = 0; i < keyspaces.size(); i++) {
            ks.put(keyspaces.get(i).keyspaceId, new VersionSet.Keyspace(keyspaces.get(i).keyspaceName,
                    keyspaceViews.get(i).version()));
        }
        long number = VersionSet.writeRepaired(fs, dir, view.version(), ks, nextKeyspaceId, keyspaceLogNumbers,
                logNumber, lastSequence, nextFileNumber);
        return FileNames.manifest(dir, number).getFileName().toString();
    }

    /** Lets the store delete these files again once nothing else needs them. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        db.pins.unpin(pin);
        view.tables().release();
        for (ReadView kv : keyspaceViews) {
            kv.tables().release();
        }
    }
}
