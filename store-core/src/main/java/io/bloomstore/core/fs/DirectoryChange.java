package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;

/**
 * A change to a directory entry that no directory sync has made durable yet, as
 * {@link FaultInjectionFileSystem} records it so that a crash can undo it. {@code target} is the
 * new name of a rename (null otherwise); {@code removed} holds the bytes of the deleted file, or of
 * the target a rename replaced (null when there is none), and {@code removedState} its written and
 * synced byte counts when the fault-injecting file system wrote it.
 *
 * <p>Thread safety: immutable; {@link #undo} runs with the lock of its {@link FaultPlan} held.
 */
record DirectoryChange(Kind kind, Path path, Path target, byte[] removed, long[] removedState) {

    enum Kind { CREATE, DELETE, RENAME }

    /** The directory whose sync makes this change durable. */
    Path directory() {
        Path parent = path.toAbsolutePath().normalize().getParent();
        return parent == null ? path.toAbsolutePath().getRoot() : parent;
    }

    /**
     * At a crash: puts the directory of {@code base} back as it was before the change, and the
     * written and synced counts in {@code files} with it.
     */
    void undo(FileSystem base, Map<Path, long[]> files) throws IOException {
        switch (kind) {
            case CREATE -> {
                base.delete(path);
                files.remove(path);
            }
            case DELETE -> {
                restoreFile(base, path, removed);
                restoreState(files, path, removedState);
            }
            case RENAME -> {
                base.rename(target, path);
                long[] state = files.remove(target);
                restoreState(files, path, state);
                if (removed != null) {
                    restoreFile(base, target, removed);
                    restoreState(files, target, removedState);
                }
            }
        }
    }

    private static void restoreState(Map<Path, long[]> files, Path p, long[] state) {
        if (state != null) {
            files.put(p, state);
        }
    }

    /** The whole contents of a file of the base file system, kept while its removal is not durable. */
    static byte[] readAll(FileSystem base, Path path) throws IOException {
        try (RandomReadFile in = base.openRead(path)) {
            ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(in.size()));
            in.readFully(0, bytes);
            return bytes.array();
        }
    }

    /** Puts a removed file back, durably, through the base file system. */
    private static void restoreFile(FileSystem base, Path path, byte[] bytes) throws IOException {
        try (WritableFile out = base.create(path)) {
            out.write(ByteBuffer.wrap(bytes));
            out.sync();
        }
    }
}
