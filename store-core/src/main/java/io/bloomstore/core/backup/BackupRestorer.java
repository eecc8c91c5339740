package io.bloomstore.core.backup;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.FileCopy;
import io.bloomstore.core.fs.FileSystem;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Restores a backup into an empty directory: copies every file the backup's meta names to its store
 * name, checking each file's size and CRC32C as it is copied, syncs them and the directory, and
 * writes {@code CURRENT} last (as {@code CURRENT.tmp}, renamed). Until then the directory is not a
 * store: a restore cut short by a crash leaves one that {@code Store.open} and a second restore
 * refuse, never a store missing files. A failure it sees (a damaged backup file, a full disk)
 * removes what it wrote.
 *
 * <p>Thread safety: holds the backup directory's lock while it reads, so no backup or purge runs
 * meanwhile.
 */
public final class BackupRestorer {
    private static final String CURRENT = "CURRENT";
    private static final String CURRENT_TEMP = "CURRENT.tmp";

    private BackupRestorer() {
    }

    /** Restores backup {@code id} (the newest when negative) of {@code engine}'s set into {@code target}. */
    public static BackupMeta restore(BackupEngine engine, FileSystem fs, long id, Path target,
                                     BackupEngine.StepHook hook) throws IOException {
        BackupEngine.StepHook steps = hook == null ? step -> { } : hook;
        try (Closeable lock = engine.lock()) {
            BackupMeta meta = engine.find(id);
            boolean created = prepareTarget(fs, target);
            try {
                BackupMeta.Entry current = null;
                for (BackupMeta.Entry e : meta.files()) {
                    if (e.storeName().equals(CURRENT)) {
                        current = e;
                        continue;
                    }
                    steps.before("copy " + e.storeName());
                    copyChecked(fs, engine.dir(), e, target.resolve(e.storeName()));
                }
                if (current == null) {
                    throw new CorruptionException(engine.dir().resolve("meta").resolve(Long.toString(meta.id())), 0,
                            "backup " + meta.id() + " names no CURRENT file");
                }
                steps.before("sync");
                fs.syncDirectory(target);
                steps.before("current");
                copyChecked(fs, engine.dir(), current, target.resolve(CURRENT_TEMP));
                fs.rename(target.resolve(CURRENT_TEMP), target.resolve(CURRENT));
                fs.syncDirectory(target);
                return meta;
            } catch (IOException | RuntimeException | Error e) {
                FileCopy.removeWritten(fs, target, created, e);
                throw e;
            }
        }
    }

    private static void copyChecked(FileSystem fs, Path backupDir, BackupMeta.Entry e, Path to) throws IOException {
        Path from = backupDir.resolve(e.backupPath());
        if (!fs.exists(from)) {
            throw new CorruptionException(from, 0, "the backup names this file, which is missing");
        }
        long size = fs.size(from);
        if (size != e.size()) {
            throw new CorruptionException(from, Math.min(size, e.size()), "the backup file has " + size
                    + " bytes, its meta file says " + e.size());
        }
        long crc;
        try {
            crc = FileCopy.copy(fs, from, to, e.size(), null);
        } catch (EOFException eof) {
            throw new CorruptionException(from, 0, "the backup file ended early: " + eof.getMessage(), eof);
        }
        if (crc != e.crc()) {
            fs.delete(to);
            throw CorruptionException.mismatch(from, 0, "CRC32C", e.crc(), crc);
        }
    }

    /** Refuses a file or a non-empty directory as the target; creates a missing one. Returns whether it did. */
    private static boolean prepareTarget(FileSystem fs, Path target) throws IOException {
        return FileCopy.prepareEmptyTarget(fs, target, "restore target",
                " (it holds a store: restore into a new or empty directory)",
                " (if a restore into it was cut short, it has no CURRENT file: delete it and restore again)");
    }
}
