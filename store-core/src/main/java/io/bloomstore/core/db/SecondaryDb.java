package io.bloomstore.core.db;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.core.CheckpointReport;
import io.bloomstore.core.IngestReport;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.SecondaryStore;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.manifest.FileNames;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * A secondary: a read-only view of a store another process writes, kept as a series of
 * {@link SecondaryView}s, each a read-only {@link DbImpl} over hard links in a directory of its
 * own ({@code scratch/view-N}). {@link #catchUp()} reads on in the WAL into the current view while
 * the primary's MANIFEST is the view's ({@link SecondaryView#readOn}); when it changed (a flush, a
 * compaction, an ingest), or the WAL cannot be followed, it makes the next view and switches reads
 * to it. Reads
 * go to the current view, holding a use of it for the call (an iterator or snapshot, until it is
 * closed), so a view is closed and its directory removed only once nothing reads it. Contract:
 * {@link SecondaryStore}; how a view is made consistent: {@link SecondaryView}.
 *
 * <p>Thread safety: safe for concurrent use; catch-ups and close are serialized by one lock, reads
 * take none.
 */
public final class SecondaryDb implements SecondaryStore {
    /** Attempts at a consistent view before giving up (a primary that changes its MANIFEST faster). */
    static final int ATTEMPTS = 50;
    /** The prefix of view directories in the scratch directory. */
    static final String VIEW_PREFIX = "view-";

    private final FileSystem fs;
    private final Path primary;
    private final Path scratch;
    private final StoreOptions options;
    private final Closeable scratchLock;
    private final boolean createdScratch;
    private final Object catchUpLock = new Object();
    private volatile SecondaryView current;
    private volatile boolean closed;
    /** The next view directory's number; under {@link #catchUpLock} (or in the open). */
    private long nextView;

    private SecondaryDb(FileSystem fs, Path primary, Path scratch, StoreOptions options, Closeable scratchLock,
                        boolean createdScratch) {
        this.fs = fs;
        this.primary = primary;
        this.scratch = scratch;
        this.options = options;
        this.scratchLock = scratchLock;
        this.createdScratch = createdScratch;
    }

    /** See {@link io.bloomstore.core.Store#openSecondary(FileSystem, Path, Path, StoreOptions)}. */
    static SecondaryStore open(FileSystem fs, Path dir, Path scratch, StoreOptions options) throws IOException {
        if (fs == null || dir == null || scratch == null || options == null) {
            throw new IllegalArgumentException("file system, directory, scratch directory and options must not be null");
        }
        ClassPreloader.startOnce();
        OffHeapBackend.checkSetting();
        if (!fs.exists(dir)) {
            throw new IllegalArgumentException("no store at " + dir + ": the directory does not exist");
        }
        if (!fs.exists(dir.resolve(FileNames.CURRENT))) {
            throw new IllegalArgumentException(dir + " is not a BloomStore directory: it has no CURRENT file");
        }
        Path p = dir.toAbsolutePath().normalize();
        Path s = scratch.toAbsolutePath().normalize();
        if (s.startsWith(p) || p.startsWith(s)) {
            throw new IllegalArgumentException("the scratch directory " + scratch + " of a secondary must lie outside "
                    + "the store directory " + dir + " (and not hold it): a secondary writes nothing there");
        }
        boolean created = !fs.exists(scratch);
        fs.createDirectories(scratch);
        Path lockFile = scratch.resolve(FileNames.LOCK);
        Closeable lock;
        try {
            lock = fs.lock(lockFile);
        } catch (IOException | RuntimeException e) {
            if (created) {
                SecondaryView.deleteDirectory(fs, scratch);
            }
            throw e;
        }
        SecondaryDb db = new SecondaryDb(fs, dir, scratch, options, lock, created);
        try {
            db.removeLeftovers();
            db.current = db.makeView(null);
            return db;
        } catch (IOException | RuntimeException | Error e) {
            db.releaseScratch();
            throw e;
        }
    }

    /** View directories a secondary that died left in the scratch directory (it held the lock we hold now). */
    private void removeLeftovers() throws IOException {
        for (String name : fs.list(scratch)) {
            if (name.startsWith(VIEW_PREFIX)) {
                SecondaryView.deleteDirectory(fs, scratch.resolve(name));
            }
        }
    }

    /** A new view, trying again while the primary changes its files beneath the attempt. */
    private SecondaryView makeView(SecondaryView previous) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Path viewDir = scratch.resolve(VIEW_PREFIX + nextView++);
            try {
                return SecondaryView.make(fs, primary, viewDir, options, previous);
            } catch (SecondaryView.Moved | NoSuchFileException | CorruptionException e) {
                // A MANIFEST edit being written or just written, a MANIFEST rolled away, a table a
                // compaction replaced: the primary moved on. Damage that stays fails every attempt.
                last = e;
            }
            try {
                Thread.sleep(Math.min(1L << Math.min(attempt, 6), 50L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while opening a secondary view of " + primary);
            }
        }
        if (last instanceof CorruptionException) {
            throw last;
        }
        throw new IOException("no consistent view of " + primary + " after " + ATTEMPTS + " attempts (its MANIFEST "
                + "or files changed during each): " + last.getMessage(), last);
    }

    @Override
    public long catchUp() throws IOException {
        synchronized (catchUpLock) {
            checkOpen();
            SecondaryView cur = current;
            try {
                SecondaryView.Fingerprint now = SecondaryView.Fingerprint.read(fs, primary, true);
                if (now.equals(cur.fingerprint())) {
                    return cur.lastSequence();
                }
                if (now.sameManifest(cur.fingerprint()) && cur.readOn(now)) {
                    return cur.lastSequence();
                }
            } catch (NoSuchFileException e) {
                // The primary is rolling its MANIFEST or deleting a segment: it has moved on.
            }
            SecondaryView next = makeView(cur);
            current = next;
            cur.release();
            return next.lastSequence();
        }
    }

    @Override
    public Path primaryDirectory() {
        return primary;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store " + primary + " is closed");
        }
    }

    /** The current view, with a use of it taken: release it when done. */
    private SecondaryView acquire() {
        for (;;) {
            checkOpen();
            SecondaryView v = current;
            if (v.tryAcquire()) {
                return v;
            }
        }
    }

    /** The view a snapshot of this secondary was taken of, with a use of it taken, or null without a snapshot. */
    private SecondarySnapshot ownSnapshot(ReadOptions readOptions) {
        Snapshot s = readOptions == null ? null : readOptions.snapshot();
        if (s == null) {
            return null;
        }
        if (!(s instanceof SecondarySnapshot ss) || ss.owner != this) {
            throw new IllegalArgumentException("snapshot " + s + " was not taken of this secondary of " + primary);
        }
        if (!ss.view.tryAcquire()) {
            throw new IllegalStateException("snapshot is closed");
        }
        return ss;
    }

    private IllegalStateException refused() {
        checkOpen();
        return new IllegalStateException("the store in " + primary + " is open as a secondary (a read-only view of a "
                + "store another process may write): writes, flushes, compactions, checkpoints and ingests are refused");
    }

    @Override
    public void put(byte[] key, byte[] value) {
        throw refused();
    }

    @Override
    public void put(byte[] key, byte[] value, WriteOptions writeOptions) {
        throw refused();
    }

    @Override
    public void delete(byte[] key) {
        throw refused();
    }

    @Override
    public void delete(byte[] key, WriteOptions writeOptions) {
        throw refused();
    }

    @Override
    public void write(WriteBatch batch, WriteOptions writeOptions) {
        throw refused();
    }

    @Override
    public void merge(byte[] key, byte[] operand) {
        throw refused();
    }

    @Override
    public void merge(byte[] key, byte[] operand, WriteOptions writeOptions) {
        throw refused();
    }

    @Override
    public void deleteRange(byte[] from, byte[] to) {
        throw refused();
    }

    @Override
    public void deleteRange(byte[] from, byte[] to, WriteOptions writeOptions) {
        throw refused();
    }

    @Override
    public void flush() {
        throw refused();
    }

    @Override
    public void compact() {
        throw refused();
    }

    @Override
    public CheckpointReport checkpoint(Path target) {
        throw refused();
    }

    @Override
    public IngestReport ingest(List<Path> tables) {
        throw refused();
    }

    /** Nothing to wait for: a secondary runs no compaction. */
    @Override
    public void awaitCompactions() {
        checkOpen();
    }

    @Override
    public byte[] get(byte[] key) throws IOException {
        return get(key, ReadOptions.DEFAULT);
    }

    @Override
    public byte[] get(byte[] key, ReadOptions readOptions) throws IOException {
        SecondarySnapshot s = ownSnapshot(readOptions);
        if (s != null) {
            try {
                return s.view.db.get(key, ReadOptions.at(s.inner));
            } finally {
                s.view.release();
            }
        }
        SecondaryView v = acquire();
        try {
            return v.db.get(key, readOptions);
        } finally {
            v.release();
        }
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to) {
        return iterator(from, to, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to, ReadOptions readOptions) {
        return open(Kind.FORWARD, from, to, readOptions);
    }

    @Override
    public StoreIterator prefixIterator(byte[] prefix) {
        return prefixIterator(prefix, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator prefixIterator(byte[] prefix, ReadOptions readOptions) {
        return open(Kind.PREFIX, prefix, null, readOptions);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to) {
        return reverseIterator(from, to, ReadOptions.DEFAULT);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to, ReadOptions readOptions) {
        return open(Kind.REVERSE, from, to, readOptions);
    }

    private enum Kind { FORWARD, PREFIX, REVERSE }

    /** An iterator of the current view (or of a snapshot's), holding a use of it until closed. */
    private StoreIterator open(Kind kind, byte[] from, byte[] to, ReadOptions readOptions) {
        return open(null, kind, from, to, readOptions);
    }

    /** As {@link #open(Kind, byte[], byte[], ReadOptions)}, in {@code keyspace} (null: the default one). */
    private StoreIterator open(io.bloomstore.core.Keyspace keyspace, Kind kind, byte[] from, byte[] to,
                               ReadOptions readOptions) {
        SecondarySnapshot s = ownSnapshot(readOptions);
        SecondaryView v = s != null ? s.view : acquire();
        ReadOptions inner = s != null ? ReadOptions.at(s.inner) : readOptions;
        try {
            io.bloomstore.core.Keyspace k = keyspace == null ? null : in(v, keyspace);
            StoreIterator it = k == null ? switch (kind) {
                case FORWARD -> v.db.iterator(from, to, inner);
                case PREFIX -> v.db.prefixIterator(from, inner);
                case REVERSE -> v.db.reverseIterator(from, to, inner);
            } : switch (kind) {
                case FORWARD -> v.db.iterator(k, from, to, inner);
                case PREFIX -> v.db.prefixIterator(k, from, inner);
                case REVERSE -> v.db.reverseIterator(k, from, to, inner);
            };
            return new SecondaryIterator(it, v);
        } catch (RuntimeException | Error e) {
            v.release();
            throw e;
        }
    }

    @Override
    public Snapshot snapshot() {
        SecondaryView v = acquire();
        try {
            return new SecondarySnapshot(this, v, v.db.snapshot());
        } catch (RuntimeException | Error e) {
            v.release();
            throw e;
        }
    }

    // ---- Keyspaces: read as of the current view (or a snapshot's) ----

    /** A keyspace of this secondary, found again by name in whichever view a read uses. */
    private record SecondaryKeyspace(SecondaryDb owner, String name, int id) implements io.bloomstore.core.Keyspace {
    }

    @Override
    public List<String> keyspaces() {
        SecondaryView v = acquire();
        try {
            return v.db.keyspaces();
        } finally {
            v.release();
        }
    }

    @Override
    public io.bloomstore.core.Keyspace keyspace(String name) {
        SecondaryView v = acquire();
        try {
            if (name == null || !v.db.keyspaces().contains(name)) {
                throw new IllegalArgumentException("no keyspace " + name + " in " + primary + " as of its last catch-up "
                        + "(keyspaces: " + v.db.keyspaces() + "); a secondary creates none");
            }
            return new SecondaryKeyspace(this, name, v.db.keyspace(name).id());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            v.release();
        }
    }

    @Override
    public io.bloomstore.core.Keyspace keyspace(String name, io.bloomstore.core.KeyspaceOptions keyspaceOptions) {
        return keyspace(name);
    }

    @Override
    public void dropKeyspace(String name) {
        throw refused();
    }

    @Override
    public IngestReport ingest(io.bloomstore.core.Keyspace keyspace, List<Path> tables) {
        throw refused();
    }

    /** {@code keyspace} in view {@code v}: the same keyspace there, found by name. */
    private io.bloomstore.core.Keyspace in(SecondaryView v, io.bloomstore.core.Keyspace keyspace) {
        if (!(keyspace instanceof SecondaryKeyspace k) || k.owner != this) {
            throw new IllegalArgumentException("keyspace " + (keyspace == null ? null : keyspace.name())
                    + " is not a keyspace of this secondary of " + primary);
        }
        try {
            io.bloomstore.core.Keyspace found = v.db.keyspaces().contains(k.name) ? v.db.keyspace(k.name) : null;
            if (found == null || found.id() != k.id) {
                throw new IllegalStateException("keyspace " + k.name + " of " + primary + " was dropped");
            }
            return found;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public byte[] get(io.bloomstore.core.Keyspace keyspace, byte[] key, ReadOptions readOptions) throws IOException {
        SecondarySnapshot s = ownSnapshot(readOptions);
        SecondaryView v = s != null ? s.view : acquire();
        try {
            return v.db.get(in(v, keyspace), key, s != null ? ReadOptions.at(s.inner) : readOptions);
        } finally {
            v.release();
        }
    }

    @Override
    public StoreIterator iterator(io.bloomstore.core.Keyspace keyspace, byte[] from, byte[] to,
                                  ReadOptions readOptions) {
        return open(keyspace, Kind.FORWARD, from, to, readOptions);
    }

    @Override
    public StoreIterator prefixIterator(io.bloomstore.core.Keyspace keyspace, byte[] prefix, ReadOptions readOptions) {
        return open(keyspace, Kind.PREFIX, prefix, null, readOptions);
    }

    @Override
    public StoreIterator reverseIterator(io.bloomstore.core.Keyspace keyspace, byte[] from, byte[] to,
                                         ReadOptions readOptions) {
        return open(keyspace, Kind.REVERSE, from, to, readOptions);
    }

    @Override
    public StoreStats stats(io.bloomstore.core.Keyspace keyspace) {
        SecondaryView v = acquire();
        try {
            return v.db.stats(in(v, keyspace));
        } finally {
            v.release();
        }
    }

    /** The current view's statistics: counters since that view was made. */
    @Override
    public StoreStats stats() {
        SecondaryView v = acquire();
        try {
            return v.db.stats();
        } finally {
            v.release();
        }
    }

    @Override
    public StoreOptions options() {
        return options;
    }

    /**
     * Closes the current view (at once, or when the last iterator or snapshot on it is closed), then
     * removes the scratch lock and, when this secondary created the scratch directory and nothing is
     * left in it, the directory. Idempotent.
     */
    @Override
    public void close() throws IOException {
        synchronized (catchUpLock) {
            if (closed) {
                return;
            }
            closed = true;
            current.release();
        }
        releaseScratch();
    }

    private void releaseScratch() {
        try {
            fs.delete(scratch.resolve(FileNames.LOCK));
            scratchLock.close();
            if (createdScratch && fs.list(scratch).isEmpty()) {
                fs.delete(scratch);
            }
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(SecondaryDb.class).warn("releasing the scratch directory {}: {}",
                    scratch, e.toString());
        }
    }
}
