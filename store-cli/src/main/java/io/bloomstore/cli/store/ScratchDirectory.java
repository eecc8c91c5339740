package io.bloomstore.cli.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A private temporary directory a reading command puts a secondary view or an image of a store in
 * while another process holds the store: beside the store (a hidden {@code .PREFIX*} directory in
 * its parent), where the store's tables can be hard-linked rather than copied, or, where the
 * parent is not writable, {@code PREFIX*} in the system's temporary directory (then perhaps another
 * file system: the tables are copied). {@link #close()} deletes it.
 *
 * <p>A command killed before its close leaves the directory behind, with links that keep tables
 * the store has since deleted on disk. So each directory holds {@value #OWNER_LOCK}, locked by its
 * owner process for as long as it uses the directory, naming the process's id: the file is locked
 * under another name and then renamed, so it exists only locked. The operating system releases
 * the lock when the owner dies, however it dies; {@link #removeStale} then finds the lock free and
 * deletes the directory. A directory without that file (an owner between creating the directory
 * and locking it, or one of an older build), one whose lock another process holds, one this JVM
 * holds, and anything not named as these directories are named, or not a directory (a symbolic
 * link), is left alone; the deletion follows no symbolic link.
 *
 * <p>Thread safety: an instance is used by one command; {@link #removeStale} may run in several
 * processes at once (the lock decides which deletes).
 */
final class ScratchDirectory implements Closeable {
    /** The owner's lock file in each scratch directory. */
    static final String OWNER_LOCK = "owner.lock";
    private static final String OWNER_LOCK_NEW = "owner.lock.new";
    /** Scratch directories this JVM owns: never swept (a lock test here would release the lock: POSIX). */
    private static final Set<Path> OWNED = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;

    private ScratchDirectory(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /**
     * Removes what killed commands left for the store in {@code dir} (see {@link #removeStale}),
     * then creates a new scratch directory for it, named {@code .PREFIX*} beside it or
     * {@code PREFIX*} in the system's temporary directory, with its owner lock held.
     */
    static ScratchDirectory create(Path dir, String prefix) throws IOException {
        Path parent = dir.toAbsolutePath().normalize().getParent();
        removeStale(parent, "." + prefix);
        Path temp = null;
        if (parent != null) {
            try {
                temp = Files.createTempDirectory(parent, "." + prefix);
            } catch (IOException | UnsupportedOperationException e) {
                // Not writable (a read-only user of the store): the system's temporary directory.
            }
        }
        if (temp == null) {
            removeStale(Path.of(System.getProperty("java.io.tmpdir")), prefix);
            temp = Files.createTempDirectory(prefix);
        }
        temp = temp.toAbsolutePath().normalize();
        try {
            return new ScratchDirectory(temp, lockOwner(temp));
        } catch (IOException | RuntimeException | Error e) {
            deleteTree(temp);
            throw e;
        }
    }

    /** Locks a new owner file under a temporary name, notes the process in it, and renames it into place. */
    private static FileChannel lockOwner(Path temp) throws IOException {
        Path fresh = temp.resolve(OWNER_LOCK_NEW);
        FileChannel ch = FileChannel.open(fresh, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            ch.lock();
            String note = "pid " + ProcessHandle.current().pid() + ", since " + Instant.now() + "\n";
            ch.write(ByteBuffer.wrap(note.getBytes(StandardCharsets.UTF_8)));
            Files.move(fresh, temp.resolve(OWNER_LOCK), StandardCopyOption.ATOMIC_MOVE);
            OWNED.add(temp);
            return ch;
        } catch (IOException | RuntimeException | Error e) {
            ch.close();
            throw e;
        }
    }

    Path path() {
        return path;
    }

    /** Deletes the directory and what is left in it, the owner lock last, then lets the lock go. */
    @Override
    public void close() throws IOException {
        try (FileChannel ch = channel) {
            deleteTree(path);
        } finally {
            OWNED.remove(path);
        }
    }

    /**
     * Deletes every directory in {@code parent} whose name starts with {@code namePrefix} and whose
     * owner is gone: it holds {@value #OWNER_LOCK} and this process could lock it. Failures to read
     * or delete are skipped silently (another process may be sweeping the same directory). Returns
     * how many were deleted.
     */
    static int removeStale(Path parent, String namePrefix) {
        if (parent == null || !Files.isDirectory(parent)) {
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent, new Named(namePrefix))) {
            for (Path p : entries) {
                Path d = p.toAbsolutePath().normalize();
                if (!OWNED.contains(d) && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS) && removeIfOwnerGone(d)) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            // The parent could not be listed (permissions, a race): nothing is removed.
        }
        return removed;
    }

    /** The entries whose name starts with a prefix (a class, not a lambda: a one-shot command links none). */
    private static final class Named implements DirectoryStream.Filter<Path> {
        private final String prefix;

        Named(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public boolean accept(Path entry) {
            Path name = entry.getFileName();
            return name != null && name.toString().startsWith(prefix);
        }
    }

    private static boolean removeIfOwnerGone(Path d) {
        Path lockFile = d.resolve(OWNER_LOCK);
        if (!Files.isRegularFile(lockFile, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                return false;
            }
            if (lock == null) {
                return false;
            }
            deleteTree(d);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Deletes {@code dir} and everything in it, its owner lock file last, following no symbolic
     * link (a link is deleted, not what it names); a file already gone is skipped.
     */
    static void deleteTree(Path dir) throws IOException {
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (!file.equals(dir.resolve(OWNER_LOCK))) {
                    Files.deleteIfExists(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                if (d.equals(dir)) {
                    Files.deleteIfExists(dir.resolve(OWNER_LOCK));
                }
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
