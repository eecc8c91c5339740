package io.bloomstore.core.backup;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.db.LiveFiles;
import io.bloomstore.core.fs.FileCopy;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * A backup directory: incremental backups of a store, each verified, with retention. Layout
 * ({@code docs/format/backup.md}):
 *
 * <pre>
 *   BACKUPS                 marks the directory as a BloomStore backup set
 *   LOCK                    held while a backup, purge or restore runs
 *   shared/N_CRC_SIZE.sst   tables and filter sidecars, shared by every backup that holds them
 *   shared/N_CRC_SIZE.filter
 *   private/ID/             each backup's own files: its WAL segments, MANIFEST and CURRENT
 *   meta/ID                 what backup ID holds ({@link BackupMeta}); written last
 * </pre>
 *
 * A table already in the set (same number, size and CRC32C) is not copied again. Every copy is
 * re-read and its CRC32C compared before it gets its final name. A backup exists once its meta file
 * does; a crash at any step before leaves files no meta names, which the next backup or purge
 * deletes, and every earlier backup intact.
 *
 * <p>Thread safety: one call at a time per backup directory, enforced across processes by
 * {@code LOCK}.
 */
public final class BackupEngine {
    static final String MARKER = "BACKUPS";
    static final String MARKER_TEXT = "BloomStore backup set, format 1\n";
    static final String LOCK = "LOCK";
    static final String SHARED = "shared";
    static final String PRIVATE = "private";
    static final String META = "meta";

    /** Called before each step that changes the backup directory; tests stop a backup there as a crash would. */
    public interface StepHook {
        void before(String step) throws IOException;
    }

    private final FileSystem fs;
    private final Path dir;
    private final StepHook hook;

    public BackupEngine(FileSystem fs, Path dir, StepHook hook) {
        this.fs = fs;
        this.dir = dir;
        this.hook = hook == null ? step -> { } : hook;
    }

    public Path dir() {
        return dir;
    }

    /**
     * Backs up the captured files (of a store on this engine's file system) as a new backup, then keeps the newest {@code keep} backups
     * (all when {@code keep} is 0).
     */
    public BackupMeta create(LiveFiles live, int keep) throws IOException {
        if (keep < 0) {
            throw new IllegalArgumentException("keep must be 0 (keep all) or positive: " + keep);
        }
        prepare();
        try (Closeable lock = fs.lock(dir.resolve(LOCK))) {
            List<BackupMeta> metas = readMetas();
            // Before the garbage goes: an unfinished backup's id is never taken again.
            long id = nextId(metas);
            collectGarbage(metas);
            Path priv = dir.resolve(PRIVATE).resolve(Long.toString(id));
            fs.createDirectories(priv);
            List<BackupMeta.Entry> entries = new ArrayList<>();
            long filesCopied = 0;
            long bytesCopied = 0;
            Set<String> sharedNames = new HashSet<>(fs.list(dir.resolve(SHARED)));
            for (LiveFiles.LiveFile f : live.files()) {
                BackupMeta.Entry e;
                if (f.kind() == LiveFiles.Kind.WAL) {
                    hook.before("copy " + f.name());
                    long crc = copyVerified(f.source(), priv.resolve(f.name()), f.length());
                    e = new BackupMeta.Entry(PRIVATE + "/" + id + "/" + f.name(), f.name(), f.length(), crc);
                    filesCopied++;
                    bytesCopied += f.length();
                } else {
                    BackupMeta.Entry existing = findShared(sharedNames, f);
                    if (existing != null) {
                        e = existing;
                    } else {
                        e = copyShared(f);
                        sharedNames.add(e.backupPath().substring(SHARED.length() + 1));
                        filesCopied++;
                        bytesCopied += f.length();
                    }
                }
                entries.add(e);
            }
            hook.before("manifest");
            String manifest = live.writeManifest(fs, priv);
            for (String name : List.of(manifest, "CURRENT")) {
                Path p = priv.resolve(name);
                long size = fs.size(p);
                entries.add(new BackupMeta.Entry(PRIVATE + "/" + id + "/" + name, name, size,
                        FileCopy.checksum(fs, p, size)));
                filesCopied++;
                bytesCopied += size;
            }
            hook.before("sync");
            fs.syncDirectory(priv);
            fs.syncDirectory(dir.resolve(SHARED));
            BackupMeta meta = new BackupMeta(id, System.currentTimeMillis(), live.lastSequence(), filesCopied,
                    bytesCopied, entries);
            hook.before("meta");
            meta.write(fs, dir.resolve(META).resolve(Long.toString(id)));
            if (keep > 0) {
                purgeLocked(keep);
            }
            return meta;
        }
    }

    /** Deletes all but the newest {@code keep} backups and every file no remaining backup names. */
    public List<BackupMeta> purge(int keep) throws IOException {
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be at least 1: " + keep);
        }
        requireBackupDir();
        try (Closeable lock = fs.lock(dir.resolve(LOCK))) {
            return purgeLocked(keep);
        }
    }

    private List<BackupMeta> purgeLocked(int keep) throws IOException {
        List<BackupMeta> metas = readMetas();
        List<BackupMeta> dropped = new ArrayList<>();
        // Oldest first: deleting a meta file drops its backup at once, whatever happens after.
        for (int i = 0; i < metas.size() - keep; i++) {
            hook.before("purge " + metas.get(i).id());
            fs.delete(dir.resolve(META).resolve(Long.toString(metas.get(i).id())));
            dropped.add(metas.get(i));
        }
        fs.syncDirectory(dir.resolve(META));
        collectGarbage(metas.subList(dropped.size(), metas.size()));
        return dropped;
    }

    /** The backups, oldest first. */
    public List<BackupMeta> list() throws IOException {
        requireBackupDir();
        return readMetas();
    }

    /** Backup {@code id}, or the newest when {@code id} is negative. */
    public BackupMeta find(long id) throws IOException {
        List<BackupMeta> metas = list();
        if (metas.isEmpty()) {
            throw new IllegalArgumentException("backup directory " + dir + " holds no backup");
        }
        if (id < 0) {
            return metas.get(metas.size() - 1);
        }
        for (BackupMeta m : metas) {
            if (m.id() == id) {
                return m;
            }
        }
        List<Long> ids = new ArrayList<>();
        metas.forEach(m -> ids.add(m.id()));
        throw new IllegalArgumentException("backup directory " + dir + " holds no backup " + id + " (it holds " + ids
                + ")");
    }

    /**
     * Reads every file of every backup (each shared file once) and checks its size and CRC32C
     * against the meta files; returns the backups checked.
     *
     * @throws CorruptionException naming the first file that is missing, of another size or damaged
     */
    public List<BackupMeta> verify() throws IOException {
        requireBackupDir();
        try (Closeable lock = fs.lock(dir.resolve(LOCK))) {
            List<BackupMeta> metas = readMetas();
            Set<String> checked = new HashSet<>();
            for (BackupMeta m : metas) {
                for (BackupMeta.Entry e : m.files()) {
                    if (!checked.add(e.backupPath())) {
                        continue;
                    }
                    Path f = dir.resolve(e.backupPath());
                    if (!fs.exists(f)) {
                        throw new CorruptionException(f, 0, "backup " + m.id() + " names this file, which is missing");
                    }
                    long size = fs.size(f);
                    if (size != e.size()) {
                        throw new CorruptionException(f, Math.min(size, e.size()), "the file has " + size
                                + " bytes, backup " + m.id() + "'s meta file says " + e.size());
                    }
                    long crc = FileCopy.checksum(fs, f, size);
                    if (crc != e.crc()) {
                        throw CorruptionException.mismatch(f, 0, "CRC32C", e.crc(), crc);
                    }
                }
            }
            return metas;
        }
    }

    /** Takes the lock a restore holds while it reads the set (so no purge deletes what it reads). */
    public Closeable lock() throws IOException {
        requireBackupDir();
        return fs.lock(dir.resolve(LOCK));
    }

    /** Creates the directory and its marker, or checks that an existing one is a backup set. */
    private void prepare() throws IOException {
        if (fs.exists(dir)) {
            List<String> names = fs.list(dir);
            if (!names.isEmpty() && !names.contains(MARKER)) {
                throw new IllegalArgumentException(dir + " is not a BloomStore backup directory (no " + MARKER
                        + " file, and it is not empty): choose an empty or new directory for backups");
            }
            if (names.contains(MARKER)) {
                requireBackupDir();
                return;
            }
        }
        fs.createDirectories(dir);
        for (String sub : List.of(SHARED, PRIVATE, META)) {
            fs.createDirectories(dir.resolve(sub));
        }
        Path temp = dir.resolve(MARKER + ".tmp");
        try (WritableFile w = fs.create(temp)) {
            w.write(ByteBuffer.wrap(MARKER_TEXT.getBytes(StandardCharsets.UTF_8)));
            w.sync();
        }
        fs.rename(temp, dir.resolve(MARKER));
        fs.syncDirectory(dir);
    }

    /** Refuses a directory that is missing or holds no backup set. */
    void requireBackupDir() throws IOException {
        Path marker = dir.resolve(MARKER);
        if (!fs.exists(dir)) {
            throw new IllegalArgumentException("no backup directory at " + dir);
        }
        if (!fs.exists(marker)) {
            throw new IllegalArgumentException(dir + " is not a BloomStore backup directory (no " + MARKER + " file)");
        }
        try (RandomReadFile f = fs.openRead(marker)) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(f.size(), 4096));
            f.readFully(0, buf);
            if (!new String(buf.array(), StandardCharsets.UTF_8).equals(MARKER_TEXT)) {
                throw new CorruptionException(marker, 0, "not a BloomStore backup set marker of a format this build reads"
                        + " (expected '" + MARKER_TEXT.trim() + "')");
            }
        }
        for (String sub : List.of(SHARED, PRIVATE, META)) {
            fs.createDirectories(dir.resolve(sub));
        }
    }

    /** Every complete backup's meta, oldest first; a damaged meta file is an error that names it. */
    private List<BackupMeta> readMetas() throws IOException {
        List<BackupMeta> metas = new ArrayList<>();
        for (String name : fs.list(dir.resolve(META))) {
            if (isNumber(name)) {
                metas.add(BackupMeta.read(fs, dir.resolve(META).resolve(name)));
            }
        }
        metas.sort((a, b) -> Long.compare(a.id(), b.id()));
        return metas;
    }

    /** One more than any backup id in use, with or without a meta file (never reuse a half-written one's). */
    private long nextId(List<BackupMeta> metas) throws IOException {
        long max = 0;
        for (BackupMeta m : metas) {
            max = Math.max(max, m.id());
        }
        for (String name : fs.list(dir.resolve(PRIVATE))) {
            if (isNumber(name)) {
                max = Math.max(max, Long.parseLong(name));
            }
        }
        return max + 1;
    }

    /**
     * Deletes what no meta file names: a crashed backup's private directory and shared copies,
     * temporary files, and the files of purged backups.
     */
    private void collectGarbage(List<BackupMeta> metas) throws IOException {
        Set<String> named = new HashSet<>();
        Set<String> ids = new HashSet<>();
        for (BackupMeta m : metas) {
            ids.add(Long.toString(m.id()));
            for (BackupMeta.Entry e : m.files()) {
                named.add(e.backupPath());
            }
        }
        for (String name : fs.list(dir.resolve(META))) {
            if (!isNumber(name)) {
                fs.delete(dir.resolve(META).resolve(name));
            }
        }
        for (String name : fs.list(dir.resolve(SHARED))) {
            if (!named.contains(SHARED + "/" + name)) {
                hook.before("delete " + SHARED + "/" + name);
                fs.delete(dir.resolve(SHARED).resolve(name));
            }
        }
        for (String id : fs.list(dir.resolve(PRIVATE))) {
            if (!ids.contains(id)) {
                Path priv = dir.resolve(PRIVATE).resolve(id);
                for (String name : fs.list(priv)) {
                    fs.delete(priv.resolve(name));
                }
                try {
                    fs.delete(priv);
                } catch (IOException e) {
                    // An empty directory left behind costs nothing but its id, which is never
                    // reused anyway; the next collection tries again. (Test file systems model
                    // files only.)
                }
            }
        }
    }

    private static boolean isNumber(String name) {
        if (name.isEmpty() || name.length() > 18) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** {@code shared/N_CRC_SIZE.ext}: the name of a table or sidecar in the set. */
    private static String sharedName(LiveFiles.LiveFile f, long crc) {
        int dot = f.name().indexOf('.');
        return f.name().substring(0, dot) + "_" + Long.toHexString(crc) + "_" + f.length() + f.name().substring(dot);
    }

    /**
     * A shared copy of {@code f} already in the set: one of its number and size whose CRC32C, in its
     * name, is that of {@code f} (read to tell). Null when there is none.
     */
    private BackupMeta.Entry findShared(Set<String> sharedNames, LiveFiles.LiveFile f) throws IOException {
        int dot = f.name().indexOf('.');
        String prefix = f.name().substring(0, dot) + "_";
        String suffix = "_" + f.length() + f.name().substring(dot);
        Map<String, Long> candidates = new HashMap<>();
        for (String name : sharedNames) {
            if (name.startsWith(prefix) && name.endsWith(suffix)) {
                String hex = name.substring(prefix.length(), name.length() - suffix.length());
                try {
                    candidates.put(name, Long.parseUnsignedLong(hex, 16));
                } catch (NumberFormatException e) {
                    // not a name this engine wrote: garbage for the next collection
                }
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        long crc = FileCopy.checksum(fs, f.source(), f.length());
        for (Map.Entry<String, Long> c : candidates.entrySet()) {
            if (c.getValue() == crc) {
                return new BackupMeta.Entry(SHARED + "/" + c.getKey(), f.name(), f.length(), crc);
            }
        }
        return null;
    }

    /** Copies a table or sidecar into {@code shared/} under a temporary name, verifies it, then renames it. */
    private BackupMeta.Entry copyShared(LiveFiles.LiveFile f) throws IOException {
        Path temp = dir.resolve(SHARED).resolve(f.name() + ".tmp");
        hook.before("copy " + f.name());
        long crc = copyVerified(f.source(), temp, f.length());
        String name = sharedName(f, crc);
        hook.before("rename " + name);
        fs.rename(temp, dir.resolve(SHARED).resolve(name));
        return new BackupMeta.Entry(SHARED + "/" + name, f.name(), f.length(), crc);
    }

    /** Copies {@code length} bytes, then re-reads the copy and compares its CRC32C with what was read. */
    private long copyVerified(Path from, Path to, long length) throws IOException {
        CRC32C sum = new CRC32C();
        long crc = FileCopy.copy(fs, from, to, length, sum);
        long written = FileCopy.checksum(fs, to, -1);
        if (written != crc || fs.size(to) != length) {
            throw CorruptionException.mismatch(to, 0, "CRC32C of the backup copy of " + from, crc, written);
        }
        return crc;
    }
}
