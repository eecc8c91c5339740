package io.bloomstore.core.db;

import io.bloomstore.core.CheckpointReport;
import io.bloomstore.core.fs.FileCopy;
import io.bloomstore.core.fs.FileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Makes a checkpoint of an open store ({@link io.bloomstore.core.Store#checkpoint}): captures its
 * {@link LiveFiles} at one moment, hard-links the tables and filter sidecars into the target (copies
 * them where the file system cannot link), copies the WAL segments up to that moment, and writes a
 * fresh MANIFEST and, last, {@code CURRENT}. A directory without {@code CURRENT} is no store, so a
 * checkpoint cut short by a crash is never opened as one; on a failure this removes what it wrote.
 *
 * <p>Thread safety: stateless; any number of checkpoints may run at once, beside writers,
 * flushes and compactions.
 */
final class CheckpointWriter {
    private CheckpointWriter() {
    }

    static CheckpointReport write(DbState db, Path target) throws IOException {
        long started = System.nanoTime();
        FileSystem fs = db.fs;
        boolean created = prepareTarget(fs, db.dir, target);
        int linked = 0;
        int copied = 0;
        long bytesCopied = 0;
        try (LiveFiles live = LiveFiles.capture(db)) {
            for (LiveFiles.LiveFile f : live.files()) {
                Path to = target.resolve(f.name());
                if (f.kind() == LiveFiles.Kind.WAL) {
                    FileCopy.copy(fs, f.source(), to, f.length(), null);
                    copied++;
                    bytesCopied += f.length();
                } else if (fs.linkOrCopy(f.source(), to)) {
                    linked++;
                } else {
                    copied++;
                    bytesCopied += f.length();
                }
            }
            fs.syncDirectory(target);
            live.writeManifest(fs, target);
            long millis = (System.nanoTime() - started) / 1_000_000;
            return new CheckpointReport(target, live.lastSequence(), tables(live), linked,
                    copied, bytesCopied, millis);
        } catch (IOException | RuntimeException | Error e) {
            FileCopy.removeWritten(fs, target, created, e);
            if (e instanceof IOException io) {
                throw new IOException("checkpoint of " + db.dir + " to " + target + " failed (what it wrote is removed): "
                        + io.getMessage(), io);
            }
            throw e;
        }
    }

    /**
     * Refuses a target inside the store, a file, or a non-empty directory; creates a missing one.
     * Returns whether it created the directory.
     */
    static boolean prepareTarget(FileSystem fs, Path storeDir, Path target) throws IOException {
        if (target == null) {
            throw new IllegalArgumentException("checkpoint target must not be null");
        }
        Path store = storeDir.toAbsolutePath().normalize();
        Path t = target.toAbsolutePath().normalize();
        if (t.startsWith(store)) {
            throw new IllegalArgumentException("checkpoint target " + target + " is inside the store directory "
                    + storeDir + ": choose a directory outside it");
        }
        return FileCopy.prepareEmptyTarget(fs, target, "checkpoint target", " (it holds a store)",
                " (if it is a checkpoint cut short, it has no CURRENT file: delete it and try again)");
    }

    /** The tables of the moment {@code live} captured, of every keyspace. */
    private static int tables(LiveFiles live) {
        int n = 0;
        for (LiveFiles.LiveFile f : live.files()) {
            n += f.kind() == LiveFiles.Kind.TABLE ? 1 : 0;
        }
        return n;
    }
}
