package io.bloomstore.core.manifest;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's durable file set: the current {@link Version} plus the counters that must survive a
 * restart (next file number, last sequence number, oldest WAL segment still needed), kept in a
 * MANIFEST log of {@link VersionEdit}s. {@code CURRENT} names the live MANIFEST and is replaced
 * atomically (temporary file, rename, directory sync). Each open writes a fresh MANIFEST holding
 * one edit that describes the whole state, and so does an edit that takes the MANIFEST past its
 * size limit while the store runs (RocksDB's max_manifest_file_size), so MANIFESTs stay small
 * however long a store lives. Recovery reads CURRENT and replays the MANIFEST through
 * {@link ManifestRecovery}; this class holds the state and logs the edits. Formats:
 * {@code docs/format/manifest.md}.
 *
 * <p>Thread safety: {@link #logAndApply} is synchronized on this object, so edits are written one
 * at a time, and so is {@link #whileManifestStable}; callers must not hold the store mutex while
 * they log an edit (the write and fsync take milliseconds, and writers would wait on them).
 * {@link #current()}, {@link #newFileNumber} and the recorded numbers may be read from any thread
 * without waiting for an edit being written: a version is current only once its edit is durable.
 */
public final class VersionSet implements Closeable {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(VersionSet.class);
    }
    /** The default size past which the MANIFEST is rolled: 64 MiB, as RocksDB. */
    public static final long DEFAULT_MAX_MANIFEST_BYTES = 64L << 20;

    private final FileSystem fs;
    private final Path dir;
    private final long maxManifestBytes;
    /** For the view of one keyspace ({@link #scoped}): the version set that holds the state; null in that one. */
    private final VersionSet root;
    /** The keyspace whose version {@link #current()} and {@link #logAndApply} are about. */
    private final int keyspace;
    /** The default keyspace's version (in the root). */
    private volatile Version current = Version.empty();
    /** Every other keyspace's name and version by number, replaced whole on change (in the root). */
    private volatile Map<Integer, Keyspace> keyspaces = Map.of();
    /** The number the next new keyspace gets; numbers are never used twice (in the root). */
    private volatile int nextKeyspaceId = 1;
    /** Per keyspace (the default one's too), the oldest WAL segment it still needs, where recorded (in the root). */
    private volatile Map<Integer, Long> keyspaceLogNumbers = Map.of();
    private final AtomicLong nextFileNumber = new AtomicLong(1);
    private volatile long lastSequence;
    private volatile long logNumber;
    private volatile long manifestNumber;
    /** Null for a version set recovered read-only. */
    private LogWriter manifest;
    private long manifestRolls;
    /** The failure of an earlier edit or roll, after which the MANIFEST takes nothing more; under this object's lock. */
    private IOException failed;
    /** The number of the MANIFEST recovery read. */
    private long manifestNumberRead;

    /** A keyspace other than the default one: its name and current version. */
    public record Keyspace(String name, Version version) {
    }

    private VersionSet(FileSystem fs, Path dir, long maxManifestBytes) {
        if (maxManifestBytes < 1) {
            throw new IllegalArgumentException("maxManifestBytes must be positive: " + maxManifestBytes);
        }
        this.fs = fs;
        this.dir = dir;
        this.maxManifestBytes = maxManifestBytes;
        this.root = null;
        this.keyspace = VersionEdit.DEFAULT_KEYSPACE;
    }

    private VersionSet(VersionSet root, int keyspace) {
        this.fs = root.fs;
        this.dir = root.dir;
        this.maxManifestBytes = root.maxManifestBytes;
        this.root = root;
        this.keyspace = keyspace;
    }

    /**
     * This version set as keyspace {@code id} sees it: {@link #current()} is that keyspace's
     * version and {@link #logAndApply} records edits of its files; everything else (file and
     * sequence numbers, the log number, the MANIFEST) is the store's, shared.
     */
    public VersionSet scoped(int id) {
        VersionSet r = root == null ? this : root;
        return id == VersionEdit.DEFAULT_KEYSPACE ? r : new VersionSet(r, id);
    }

    /** The keyspaces other than the default one, by number (empty for a store without keyspaces). */
    public Map<Integer, Keyspace> keyspaces() {
        return (root == null ? this : root).keyspaces;
    }

    /** The number a keyspace created now gets. */
    public int nextKeyspaceId() {
        return (root == null ? this : root).nextKeyspaceId;
    }

    /** The version of keyspace {@code id}: the default keyspace's, or null for a keyspace not (or no longer) there. */
    public Version version(int id) {
        VersionSet r = root == null ? this : root;
        if (id == VersionEdit.DEFAULT_KEYSPACE) {
            return r.current;
        }
        Keyspace k = r.keyspaces.get(id);
        return k == null ? null : k.version();
    }

    /**
     * The oldest WAL segment keyspace {@code id} still needs: its records in older segments are in
     * its tables (the store's log number when nothing more is recorded). Replay passes over them.
     */
    public long keyspaceLogNumber(int id) {
        VersionSet r = root == null ? this : root;
        Long n = r.keyspaceLogNumbers.get(id);
        return n == null ? r.logNumber : Math.max(n, r.logNumber);
    }

    /** Every keyspace's recorded log number ({@link #keyspaceLogNumber}), by keyspace number. */
    public Map<Integer, Long> keyspaceLogNumbers() {
        return (root == null ? this : root).keyspaceLogNumbers;
    }

    /** Every table of every keyspace's current version. */
    public List<FileMetaData> allLiveFiles() {
        VersionSet r = root == null ? this : root;
        Map<Integer, Keyspace> ks = r.keyspaces;
        if (ks.isEmpty()) {
            return r.current.allFiles();
        }
        List<FileMetaData> all = new ArrayList<>(r.current.allFiles());
        for (Keyspace k : ks.values()) {
            all.addAll(k.version().allFiles());
        }
        return all;
    }

    /** Creates the MANIFEST and CURRENT of a new, empty store. */
    public static VersionSet create(FileSystem fs, Path dir) throws IOException {
        return create(fs, dir, DEFAULT_MAX_MANIFEST_BYTES);
    }

    /** As {@link #create(FileSystem, Path)}, rolling the MANIFEST once it passes {@code maxManifestBytes}. */
    public static VersionSet create(FileSystem fs, Path dir, long maxManifestBytes) throws IOException {
        VersionSet vs = new VersionSet(fs, dir, maxManifestBytes);
        vs.writeNewManifest(vs.current, vs.logNumber, vs.lastSequence);
        return vs;
    }

    /**
     * Writes a MANIFEST holding {@code state} and makes CURRENT name it, durably: what repair does
     * once it has chosen the tables to keep. Every WAL segment numbered below {@code logNumber} is
     * then obsolete. Returns the new MANIFEST's number.
     */
    public static long writeRepaired(FileSystem fs, Path dir, Version state, long logNumber, long lastSequence,
                                     long nextFileNumber) throws IOException {
        return writeRepaired(fs, dir, state, Map.of(), 1, Map.of(), logNumber, lastSequence, nextFileNumber);
    }

    /** As {@link #writeRepaired(FileSystem, Path, Version, long, long, long)}, with other keyspaces too. */
    public static long writeRepaired(FileSystem fs, Path dir, Version state, Map<Integer, Keyspace> keyspaces,
                                     int nextKeyspaceId, Map<Integer, Long> keyspaceLogNumbers, long logNumber,
                                     long lastSequence, long nextFileNumber) throws IOException {
        VersionSet vs = new VersionSet(fs, dir, DEFAULT_MAX_MANIFEST_BYTES);
        vs.keyspaces = Collections.unmodifiableMap(new TreeMap<>(keyspaces));
        vs.nextKeyspaceId = nextKeyspaceId;
        vs.keyspaceLogNumbers = Map.copyOf(keyspaceLogNumbers);
        vs.nextFileNumber.set(nextFileNumber);
        vs.writeNewManifest(state, logNumber, lastSequence);
        vs.close();
        return vs.manifestNumber;
    }

    /**
     * Rebuilds the state from the MANIFEST named by CURRENT, then starts a new MANIFEST. A torn last
     * edit (a crash while it was written) is dropped: the flush it described was not complete.
     *
     * @throws CorruptionException when CURRENT or the MANIFEST is damaged
     */
    public static VersionSet recover(FileSystem fs, Path dir) throws IOException {
        return recover(fs, dir, DEFAULT_MAX_MANIFEST_BYTES);
    }

    /** As {@link #recover(FileSystem, Path)}, rolling the MANIFEST once it passes {@code maxManifestBytes}. */
    public static VersionSet recover(FileSystem fs, Path dir, long maxManifestBytes) throws IOException {
        VersionSet vs = read(fs, dir, maxManifestBytes);
        vs.writeNewManifest(vs.current, vs.logNumber, vs.lastSequence);
        try {
            fs.delete(FileNames.manifest(dir, vs.manifestNumberRead));
        } catch (IOException | RuntimeException e) {
            vs.manifest.close();
            throw e;
        }
        return vs;
    }

    /**
     * Rebuilds the state as {@link #recover(FileSystem, Path)} does, writing nothing: no new
     * MANIFEST, no CURRENT. The result cannot log edits ({@link #logAndApply} throws
     * {@link IllegalStateException}); for stores opened read-only.
     */
    public static VersionSet recoverReadOnly(FileSystem fs, Path dir) throws IOException {
        VersionSet vs = read(fs, dir, DEFAULT_MAX_MANIFEST_BYTES);
        vs.manifestNumber = vs.manifestNumberRead;
        return vs;
    }

    private static VersionSet read(FileSystem fs, Path dir, long maxManifestBytes) throws IOException {
        VersionSet vs = new VersionSet(fs, dir, maxManifestBytes);
        ManifestRecovery r = ManifestRecovery.read(fs, dir);
        vs.current = r.current();
        vs.keyspaces = r.keyspaces();
        vs.nextKeyspaceId = r.nextKeyspaceId();
        vs.keyspaceLogNumbers = r.keyspaceLogNumbers();
        vs.nextFileNumber.set(r.nextFileNumber());
        vs.lastSequence = r.lastSequence();
        vs.logNumber = r.logNumber();
        vs.markFileNumberUsed(r.manifestNumber());
        vs.manifestNumberRead = r.manifestNumber();
        return vs;
    }

    /** Records a section's keyspace log number (never backwards), or forgets a dropped keyspace's. */
    static void applyKeyspaceLogNumber(VersionEdit section, Map<Integer, Long> logNumbers) {
        if (section.dropsKeyspace()) {
            logNumbers.remove(section.keyspace());
        } else if (section.keyspaceLogNumber().isPresent()) {
            logNumbers.merge(section.keyspace(), section.keyspaceLogNumber().getAsLong(), Math::max);
        }
    }

    /**
     * Writes a MANIFEST holding {@code state} in one edit, makes CURRENT name it durably, and makes
     * it the one edits are appended to. On failure the previous MANIFEST stays the one in use here
     * (CURRENT may name either: both hold every edit logged so far).
     */
    private void writeNewManifest(Version state, long stateLogNumber, long stateLastSequence) throws IOException {
        writeNewManifest(state, keyspaces, stateLogNumber, stateLastSequence);
    }

    private void writeNewManifest(Version state, Map<Integer, Keyspace> stateKeyspaces, long stateLogNumber,
                                  long stateLastSequence) throws IOException {
        long number = nextFileNumber.getAndIncrement();
        Path path = FileNames.manifest(dir, number);
        WritableFile file = fs.create(path);
        LogWriter writer = null;
        try {
            writer = new LogWriter(file, LogFormat.MANIFEST_MAGIC);
            VersionEdit snapshot = new VersionEdit().setLogNumber(stateLogNumber)
                    .setNextFileNumber(nextFileNumber.get()).setLastSequence(stateLastSequence);
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (FileMetaData f : state.files(level)) {
                    snapshot.addFile(level, f);
                }
            }
            for (io.bloomstore.core.rangedel.RangeTombstone t : state.rangeTombstones().tombstones()) {
                snapshot.addRangeTombstone(t);
            }
            if (nextKeyspaceId > 1) {
                snapshot.setNextKeyspaceId(nextKeyspaceId);
            }
            Long defaultLog = keyspaceLogNumbers.get(VersionEdit.DEFAULT_KEYSPACE);
            if (defaultLog != null) {
                snapshot.setKeyspaceLogNumber(defaultLog);
            }
            for (Map.Entry<Integer, Keyspace> k : stateKeyspaces.entrySet()) {
                snapshot.createKeyspace(k.getKey(), k.getValue().name());
            }
            writer.addRecord(snapshot.encode());
            // Each keyspace's files in a record of their own, all synced before CURRENT names this MANIFEST.
            for (Map.Entry<Integer, Keyspace> k : stateKeyspaces.entrySet()) {
                VersionEdit files = new VersionEdit().setKeyspace(k.getKey());
                Long kLog = keyspaceLogNumbers.get(k.getKey());
                if (kLog != null) {
                    files.setKeyspaceLogNumber(kLog);
                }
                Version kv = k.getValue().version();
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (FileMetaData f : kv.files(level)) {
                        files.addFile(level, f);
                    }
                }
                for (io.bloomstore.core.rangedel.RangeTombstone t : kv.rangeTombstones().tombstones()) {
                    files.addRangeTombstone(t);
                }
                writer.addRecord(files.encode());
            }
            writer.sync();
            Path temp = dir.resolve(FileNames.CURRENT_TEMP);
            try (WritableFile w = fs.create(temp)) {
                w.write(ByteBuffer.wrap((path.getFileName() + "\n").getBytes(StandardCharsets.UTF_8)));
                w.sync();
            }
            fs.rename(temp, dir.resolve(FileNames.CURRENT));
            fs.syncDirectory(dir);
        } catch (IOException | RuntimeException | Error e) {
            try {
                file.close();
            } catch (IOException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
        manifest = writer;
        manifestNumber = number;
    }

    /**
     * Records the edit durably in the MANIFEST (written and synced), then makes the resulting
     * version current. The edit is completed with the next file number. When the MANIFEST has
     * grown past its limit, the whole new state is then written to a new MANIFEST, CURRENT is
     * switched to it atomically and the old one deleted; a crash at any step leaves CURRENT naming
     * a complete MANIFEST that holds the edit.
     *
     * @throws IOException when the edit or the roll fails: the edit may or may not be durable, the
     *         version set is left as it was before the call (current version and recorded numbers),
     *         and every later call fails too, since nothing may be appended after a possibly torn
     *         edit (the store turns read-only)
     */
    public Version logAndApply(VersionEdit edit) throws IOException {
        if (root != null) {
            edit.setKeyspace(keyspace);
            root.logAndApply(edit);
            Version v = root.version(keyspace);
            return v == null ? Version.empty() : v;
        }
        return logAndApplyHere(edit);
    }

    private synchronized Version logAndApplyHere(VersionEdit edit) throws IOException {
        if (manifest == null) {
            throw new IllegalStateException("the version set of " + dir + " was recovered read-only");
        }
        if (failed != null) {
            throw new IOException("the MANIFEST takes no more edits after an earlier failure: " + failed.getMessage(),
                    failed);
        }
        // Never write an edit that recovery would refuse as a damaged MANIFEST.
        Map<Integer, Keyspace> nextKeyspaces = keyspaces;
        for (VersionEdit.CreatedKeyspace c : edit.createdKeyspaces()) {
            if (c.id() < nextKeyspaceId || nextKeyspaces.containsKey(c.id())) {
                throw new IllegalStateException("refusing to log a MANIFEST edit of " + dir + " that creates keyspace "
                        + c.id() + " (numbers below " + nextKeyspaceId + " are used)");
            }
            Map<Integer, Keyspace> m = new TreeMap<>(nextKeyspaces);
            m.put(c.id(), new Keyspace(c.name(), Version.empty()));
            nextKeyspaces = Collections.unmodifiableMap(m);
        }
        int nextKsId = nextKeyspaceId;
        for (VersionEdit.CreatedKeyspace c : edit.createdKeyspaces()) {
            nextKsId = Math.max(nextKsId, c.id() + 1);
        }
        if (nextKsId != nextKeyspaceId) {
            edit.setNextKeyspaceId(nextKsId);
        }
        edit.setNextFileNumber(nextFileNumber.get());
        Version next = current;
        Map<Integer, Long> nextLogNumbers = keyspaceLogNumbers;
        for (VersionEdit section : edit.sections()) {
            if (section.dropsKeyspace() || section.keyspaceLogNumber().isPresent()) {
                Map<Integer, Long> m = new HashMap<>(nextLogNumbers);
                applyKeyspaceLogNumber(section, m);
                nextLogNumbers = Map.copyOf(m);
            }
            int ks = section.keyspace();
            Version base = ks == VersionEdit.DEFAULT_KEYSPACE ? next
                    : nextKeyspaces.containsKey(ks) ? nextKeyspaces.get(ks).version() : null;
            String wrong = base == null ? "changes keyspace " + ks + ", which does not exist" : base.check(section);
            if (wrong != null) {
                throw new IllegalStateException("refusing to log a MANIFEST edit of " + dir + " that " + wrong);
            }
            Version applied = base.apply(section);
            if (section.dropsKeyspace() && !applied.allFiles().isEmpty()) {
                throw new IllegalStateException("refusing to log a MANIFEST edit of " + dir + " that drops keyspace "
                        + ks + " but leaves its tables");
            }
            if (ks == VersionEdit.DEFAULT_KEYSPACE) {
                next = applied;
            } else {
                Map<Integer, Keyspace> m = new TreeMap<>(nextKeyspaces);
                if (section.dropsKeyspace()) {
                    m.remove(ks);
                } else {
                    m.put(ks, new Keyspace(nextKeyspaces.get(ks).name(), applied));
                }
                nextKeyspaces = Collections.unmodifiableMap(m);
            }
        }
        // Never backwards: keyspaces' flushes log their edits in any order.
        long nextLogNumber = Math.max(logNumber, edit.logNumber().orElse(logNumber));
        long nextLastSequence = edit.lastSequence().orElse(lastSequence);
        try {
            manifest.addRecord(edit.encode());
            manifest.sync();
            if (manifest.size() > maxManifestBytes) {
                int keptNextKsId = nextKeyspaceId;
                Map<Integer, Long> keptLogNumbers = keyspaceLogNumbers;
                nextKeyspaceId = nextKsId;
                keyspaceLogNumbers = nextLogNumbers;
                try {
                    roll(next, nextKeyspaces, nextLogNumber, nextLastSequence);
                } finally {
                    nextKeyspaceId = keptNextKsId;
                    keyspaceLogNumbers = keptLogNumbers;
                }
            }
        } catch (IOException e) {
            failed = e;
            throw e;
        } catch (RuntimeException | Error e) {
            failed = new IOException("MANIFEST edit failed: " + e, e);
            throw e;
        }
        logNumber = nextLogNumber;
        lastSequence = nextLastSequence;
        nextKeyspaceId = nextKsId;
        keyspaces = nextKeyspaces;
        keyspaceLogNumbers = nextLogNumbers;
        current = next;
        return next;
    }

    /** Replaces the MANIFEST by a new one holding {@code state} (the current one and the edit just logged) in one edit. */
    private void roll(Version state, Map<Integer, Keyspace> stateKeyspaces, long stateLogNumber,
                      long stateLastSequence) throws IOException {
        LogWriter old = manifest;
        Path oldPath = FileNames.manifest(dir, manifestNumber);
        writeNewManifest(state, stateKeyspaces, stateLogNumber, stateLastSequence);
        manifestRolls++;
        // CURRENT names the new MANIFEST now: the old one is garbage, and the next open deletes it
        // if this cannot.
        try {
            old.close();
            fs.delete(oldPath);
        } catch (IOException e) {
            Log.LOG.warn("could not delete the rolled MANIFEST {}; the next open deletes it", oldPath, e);
        }
    }

    /** MANIFESTs rolled while running (not counting the one each open writes). */
    public long manifestRolls() {
        if (root != null) {
            return root.manifestRolls();
        }
        synchronized (this) {
            return manifestRolls;
        }
    }

    public Version current() {
        if (root != null) {
            Version v = root.version(keyspace);
            return v == null ? Version.empty() : v;
        }
        return current;
    }

    public long newFileNumber() {
        return (root == null ? this : root).nextFileNumber.getAndIncrement();
    }

    /** Makes sure later file numbers are above {@code number} (files found during recovery). */
    public void markFileNumberUsed(long number) {
        if (root != null) {
            root.markFileNumberUsed(number);
            return;
        }
        long next = number + 1;
        for (long seen = nextFileNumber.get(); seen < next && !nextFileNumber.compareAndSet(seen, next);
             seen = nextFileNumber.get()) {
            // another thread raised it meanwhile: compare again
        }
    }

    /** Sequence number recorded by the last edit: every write up to it is in a table. */
    public long lastSequence() {
        return root == null ? lastSequence : root.lastSequence;
    }

    /** WAL segments numbered below this hold nothing that is not in a table. */
    public long logNumber() {
        return root == null ? logNumber : root.logNumber;
    }

    public long manifestNumber() {
        return root == null ? manifestNumber : root.manifestNumber;
    }

    /** Work that must see no MANIFEST written or rolled while it runs. */
    public interface StableAction<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code action} while no edit is logged and no MANIFEST rolled: what choosing obsolete
     * files needs, so that a listing never sees a MANIFEST or temporary CURRENT a roll is still
     * writing and takes it for garbage.
     */
    public <T> T whileManifestStable(StableAction<T> action) throws IOException {
        if (root != null) {
            return root.whileManifestStable(action);
        }
        synchronized (this) {
            return action.run();
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (root == null && manifest != null) {
            manifest.close();
        }
    }
}
