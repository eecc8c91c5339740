package io.bloomstore.core;

import io.bloomstore.core.backup.BackupEngine;
import io.bloomstore.core.backup.BackupMeta;
import io.bloomstore.core.backup.BackupRestorer;
import io.bloomstore.core.db.DbImpl;
import io.bloomstore.core.db.LiveFiles;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Incremental, verified backups of a live store, with retention, and restores (RocksDB's
 * {@code BackupEngine}). A backup directory holds any number of backups of a store; a table already
 * in the directory (same number, size and CRC32C) is not copied again, so a backup after a few
 * writes copies the new tables and the WAL, not the store. Each backup is a consistent moment of
 * the store, as a {@link Store#checkpoint}: every write acknowledged before {@link #create} began,
 * while writers, flushes and compactions go on.
 *
 * <p>Safety: every file copied is read back and its CRC32C compared before it counts; a backup
 * exists once its meta file, written last (to a temporary name, synced, renamed), does. A crash or
 * kill at any step leaves the earlier backups intact and usable, and files of the unfinished one
 * that the next {@link #create} or {@link #purge} deletes. A restore checks each file's size and
 * CRC32C as it copies and writes {@code CURRENT} last, so its target is either a complete store or
 * not a store at all (and then refused by {@link Store#open} and by another restore); a damaged
 * backup file is a {@link io.bloomstore.bloom.CorruptionException} naming it, and the restore
 * removes what it wrote. Format: {@code docs/format/backup.md}.
 *
 * <p>Thread safety: any thread; one backup, purge or restore at a time per backup directory
 * (a {@code LOCK} file; a second one, in any process, gets {@link LockedException}).
 */
public final class StoreBackup {
    private StoreBackup() {
    }

    /** Backs up {@code store} into {@code backupDir} (created if missing), keeping every backup. */
    public static BackupInfo create(Store store, Path backupDir) throws IOException {
        return create(store, backupDir, 0);
    }

    /**
     * Backs up {@code store} into {@code backupDir} (created if missing), then deletes all but the
     * newest {@code keep} backups (none when {@code keep} is 0).
     *
     * @throws IllegalArgumentException when {@code backupDir} is inside the store directory, or is
     *         not empty and holds no backup set, or {@code keep} is negative
     * @throws IllegalStateException when the store is closed or open read-only
     */
    public static BackupInfo create(Store store, Path backupDir, int keep) throws IOException {
        DbImpl db = requireStore(store);
        if (backupDir.toAbsolutePath().normalize().startsWith(db.directory().toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("backup directory " + backupDir + " is inside the store directory "
                    + db.directory() + ": choose a directory outside it");
        }
        try (LiveFiles live = db.liveFiles()) {
            return info(new BackupEngine(live.fileSystem(), backupDir, null).create(live, keep));
        }
    }

    /** The backups in {@code backupDir}, oldest first. */
    public static List<BackupInfo> list(Path backupDir) throws IOException {
        List<BackupInfo> out = new ArrayList<>();
        for (BackupMeta m : new BackupEngine(LocalFileSystem.INSTANCE, backupDir, null).list()) {
            out.add(info(m));
        }
        return out;
    }

    /** Deletes all but the newest {@code keep} backups, and the files only they held; returns the deleted ones. */
    public static List<BackupInfo> purge(Path backupDir, int keep) throws IOException {
        List<BackupInfo> out = new ArrayList<>();
        for (BackupMeta m : new BackupEngine(LocalFileSystem.INSTANCE, backupDir, null).purge(keep)) {
            out.add(info(m));
        }
        return out;
    }

    /**
     * Reads every file of every backup in {@code backupDir} and checks its size and CRC32C against
     * what the backup recorded when it wrote it; returns the backups checked.
     *
     * @throws io.bloomstore.bloom.CorruptionException naming the first file missing, cut short or damaged
     */
    public static List<BackupInfo> verify(Path backupDir) throws IOException {
        List<BackupInfo> out = new ArrayList<>();
        for (BackupMeta m : new BackupEngine(LocalFileSystem.INSTANCE, backupDir, null).verify()) {
            out.add(info(m));
        }
        return out;
    }

    /**
     * Restores backup {@code id} ({@code -1}: the newest) into {@code target}, a missing or empty
     * directory, which then holds a store to {@link Store#open}.
     *
     * @throws IllegalArgumentException when {@code target} is not empty, or there is no such backup
     * @throws io.bloomstore.bloom.CorruptionException when a backup file is damaged or missing
     */
    public static BackupInfo restore(Path backupDir, long id, Path target) throws IOException {
        return restore(LocalFileSystem.INSTANCE, backupDir, id, target);
    }

    /** As {@link #restore(Path, long, Path)} on another file system, for tests. */
    public static BackupInfo restore(FileSystem fs, Path backupDir, long id, Path target) throws IOException {
        return info(BackupRestorer.restore(new BackupEngine(fs, backupDir, null), fs, id, target, null));
    }

    static BackupInfo info(BackupMeta m) {
        return new BackupInfo(m.id(), m.createdMillis(), m.lastSequence(), m.files().size(), m.totalBytes(),
                m.filesCopied(), m.bytesCopied());
    }

    private static DbImpl requireStore(Store store) {
        if (store instanceof DbImpl db) {
            return db;
        }
        throw new IllegalArgumentException("StoreBackup backs up stores opened by Store.open, not " + store);
    }
}
