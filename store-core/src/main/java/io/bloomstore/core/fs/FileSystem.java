package io.bloomstore.core.fs;

import io.bloomstore.core.LockedException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The one interface under all of the engine's file I/O, so tests can swap in an in-memory
 * file system or one that injects faults (lost unsynced data, torn writes, full disk).
 *
 * <p>Implementations: {@link LocalFileSystem} (the real one) and {@link MemoryFileSystem}
 * (tests); wrappers that change a few calls of another, such as {@link FaultInjectionFileSystem},
 * extend {@link ForwardingFileSystem}. Thread safety: implementations are safe for concurrent
 * use; the files they return document their own.
 */
public interface FileSystem {

    /** Creates (or truncates) a file for sequential writing. */
    WritableFile create(Path path) throws IOException;

    /** Opens an existing file for positional reads. */
    RandomReadFile openRead(Path path) throws IOException;

    /**
     * Opens an existing file for positional reads that bypass the operating system's page cache
     * (O_DIRECT), for stores whose data outgrows memory and for measuring real device reads.
     * Reads may have any position and length: the file aligns them itself. File systems without a
     * page cache of their own (the in-memory one) read as {@link #openRead} does.
     *
     * @throws IOException or {@link UnsupportedOperationException} when the file system refuses
     *                     direct I/O (tmpfs does)
     */
    default RandomReadFile openReadDirect(Path path) throws IOException {
        return openRead(path);
    }

    boolean exists(Path path);

    /** Size in bytes of an existing file. */
    long size(Path path) throws IOException;

    /** Deletes a file; no error when it does not exist. */
    void delete(Path path) throws IOException;

    /**
     * Replaces a small file's contents with {@code content}, without a sync: for files whose loss
     * or tearing by a crash of the machine is harmless (statistics that start again from zero).
     * The default writes a temporary file beside it and renames it over the file; the local file
     * system writes in place (a rename waits for the file system's journal: some 0.8 ms, which
     * was most of the close of a store after a flush).
     */
    default void overwrite(Path path, ByteBuffer content) throws IOException {
        Path temp = path.resolveSibling(path.getFileName() + ".tmp");
        try (WritableFile out = create(temp)) {
            out.write(content);
        }
        rename(temp, path);
    }

    /** Renames atomically, replacing the target. */
    void rename(Path source, Path target) throws IOException;

    /** Names of the entries of a directory (not paths), in no particular order. */
    List<String> list(Path dir) throws IOException;

    void createDirectories(Path dir) throws IOException;

    /**
     * Makes the creations, renames and deletions of entries in the directory durable: until then a
     * power loss may undo them (POSIX promises nothing more), whatever was synced in the files.
     */
    void syncDirectory(Path dir) throws IOException;

    /**
     * Makes every byte of an existing file durable (an fsync of a file this process did not write,
     * such as a WAL segment an earlier process left unsynced when it was killed). Returns false
     * where this file system cannot, and did not: callers then take the path that needs no such
     * sync. The default cannot.
     */
    default boolean syncFile(Path path) throws IOException {
        return false;
    }

    /**
     * Takes an exclusive lock on a file (created if needed) that holds while the returned
     * handle is open. Fails with {@link LockedException} when another process or another
     * holder in this JVM has it.
     */
    Closeable lock(Path path) throws IOException;

    /**
     * Takes a shared lock on a file that holds while the returned handle is open: any number of
     * shared holders at once, in this JVM and in others, but none while {@link #lock} is held, and
     * {@link #lock} fails while a shared one is held. Fails with {@link LockedException} when an
     * exclusive holder has it. A missing file is created where the directory allows; where it does
     * not, no writer can have taken the exclusive lock either and the handle holds nothing. This
     * default takes the exclusive lock, which is correct but lets only one reader in at a time.
     */
    default Closeable lockShared(Path path) throws IOException {
        return lock(path);
    }

    /**
     * While a shared lock on {@code path} is held: excludes the other shared holders (waiting for
     * them) until the returned handle is closed, so that one of them can read, change and rewrite a
     * small file without losing another's change. This default, matching the exclusive
     * {@link #lockShared} default, holds nothing.
     *
     * @throws IOException when the lock file cannot be opened for writing (a read-only directory)
     */
    default Closeable lockForUpdate(Path path) throws IOException {
        return () -> { };
    }

    /**
     * Makes {@code link} a second name of the existing file {@code existing} (a hard link) where
     * this file system can, else a copy of it; returns whether it linked. Only for files nobody
     * writes any more (tables, filter sidecars): a link shares later changes, a copy does not. The
     * new name is durable only after {@link #syncDirectory}; a copy's bytes are synced here. This
     * default copies through {@link #create} and {@link #openRead}, so wrappers see every step.
     */
    default boolean linkOrCopy(Path existing, Path link) throws IOException {
        FileCopy.copy(this, existing, link, size(existing), null);
        return false;
    }

    /**
     * Whether files of this file system can be memory-mapped by path (the real one only);
     * when false, filters are loaded into memory instead.
     */
    boolean supportsMapping();
}
