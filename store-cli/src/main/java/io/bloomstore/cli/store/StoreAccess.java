package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.LockedException;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.manifest.FileNames;

/**
 * Opens the store of a store command, turning every reason a directory cannot be used into one
 * clear message and its exit code before the engine is involved: a path that is a file, a
 * missing or empty directory for a command that does not create stores, a directory holding
 * something else ({@link ExitCodes#NOT_A_STORE}); a directory BloomStore may not write to, for
 * a command that writes ({@link ExitCodes#IO}). The reading commands open the store read-only
 * ({@link #openReadOnly}), which writes nothing but the cumulative counters, and those only where
 * it may; on a store another process holds open for writing they read a secondary view of it
 * ({@link LiveStoreView}). A writing command on a store open elsewhere is left to the engine's
 * {@code LockedException} ({@link ExitCodes#LOCKED}).
 *
 * <p>Thread safety: stateless.
 */
final class StoreAccess {
    private StoreAccess() {
    }

    /**
     * Opens the store in {@code dir} with {@code options}; {@code create} lets a missing or empty
     * directory become a new store ({@code put} and {@code load} do).
     */
    static Store open(Path dir, StoreOptions options, boolean create) throws IOException {
        if (create) {
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw notAStore(dir + " is a file, not a store directory");
            }
        } else {
            requireStoreDirectory(dir);
        }
        try {
            return Store.open(dir, options.toBuilder().createIfMissing(create).build());
        } catch (IllegalArgumentException e) {
            // The options were checked when built, so the engine refused the directory itself.
            throw notAStore(e.getMessage());
        } catch (AccessDeniedException e) {
            throw new CliException(ExitCodes.IO, "cannot open the store in " + dir + ": permission denied on "
                    + e.getFile() + " (BloomStore writes to its directory to change the store)", e);
        }
    }

    /**
     * Opens the store in {@code dir} read-only ({@code Store.openReadOnly}): for the commands that
     * only read, so that they write no file, start no background thread and may run side by side.
     * When another process holds the store for writing, opens a secondary of it instead
     * ({@link LiveStoreView}: the store as of now, through links in a private temporary directory
     * deleted at close) and says so once on {@code err}.
     */
    static Store openReadOnly(Path dir, StoreOptions options, PrintWriter err) throws IOException {
        requireStoreDirectory(dir);
        try {
            try {
                return Store.openReadOnly(dir, options);
            } catch (LockedException e) {
                Store live = LiveStoreView.open(dir, options);
                err.println("bloomstore: " + dir + " is held open by another process: reading a live view of it as of"
                        + " now (a secondary open, which writes nothing there)");
                err.flush();
                return live;
            }
        } catch (IllegalArgumentException e) {
            throw notAStore(e.getMessage());
        } catch (AccessDeniedException e) {
            throw new CliException(ExitCodes.IO, "cannot read the store in " + dir + ": permission denied on "
                    + e.getFile(), e);
        }
    }

    /** Refuses a path that is a file, missing, or an empty directory: there is no store to use. */
    static void requireStoreDirectory(Path dir) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw notAStore(dir + " is a file, not a store directory");
        }
        if (!Files.isDirectory(dir)) {
            throw notAStore("no store at " + dir + ": the directory does not exist (put or load create one)");
        }
        if (isEmptyApartFromLock(dir)) {
            throw notAStore("no store at " + dir + ": the directory is empty (put or load create one)");
        }
    }

    private static boolean isEmptyApartFromLock(Path dir) throws IOException {
        // A directory stream, not Files.list: no stream pipeline or lambda on a one-shot command's path.
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (!p.getFileName().toString().equals(FileNames.LOCK)) {
                    return false;
                }
            }
            return true;
        }
    }

    static CliException notAStore(String message) {
        return new CliException(ExitCodes.NOT_A_STORE, message);
    }
}
