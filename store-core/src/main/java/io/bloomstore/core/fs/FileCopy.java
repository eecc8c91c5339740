package io.bloomstore.core.fs;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Copies and checksums files through a {@link FileSystem}, in 1 MiB chunks (nothing reads a whole
 * file onto the heap): what checkpoints, backups and restores move files with.
 *
 * <p>Thread safety: stateless.
 */
public final class FileCopy {
    private static final int CHUNK = 1 << 20;

    private FileCopy() {
    }

    /**
     * Writes the first {@code length} bytes of {@code from} to a new file {@code to} and syncs it;
     * returns their CRC32C, also fed to {@code crc} when it is not null. On failure {@code to} is
     * deleted (best effort) and the failure rethrown.
     *
     * @throws EOFException when {@code from} holds fewer than {@code length} bytes
     */
    public static long copy(FileSystem fs, Path from, Path to, long length, CRC32C crc) throws IOException {
        CRC32C sum = crc != null ? crc : new CRC32C();
        try (RandomReadFile in = fs.openRead(from); WritableFile out = fs.create(to)) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(length, 1)));
            for (long pos = 0; pos < length; ) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), length - pos));
                int n = in.read(pos, buf);
                if (n < 0) {
                    throw new EOFException(from + " ends at byte " + pos + ", before the " + length + " to copy");
                }
                buf.flip();
                sum.update(buf.array(), 0, n);
                out.write(buf.array(), 0, n);
                pos += n;
            }
            out.sync();
        } catch (IOException | RuntimeException | Error e) {
            try {
                fs.delete(to);
            } catch (IOException | RuntimeException deleteFailure) {
                e.addSuppressed(deleteFailure);
            }
            throw e;
        }
        return sum.getValue();
    }

    /** The CRC32C of the first {@code length} bytes of {@code file} (of all of it when {@code length} is -1). */
    public static long checksum(FileSystem fs, Path file, long length) throws IOException {
        CRC32C sum = new CRC32C();
        try (RandomReadFile in = fs.openRead(file)) {
            long end = length < 0 ? in.size() : length;
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(end, 1)));
            for (long pos = 0; pos < end; ) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), end - pos));
                int n = in.read(pos, buf);
                if (n < 0) {
                    throw new EOFException(file + " ends at byte " + pos + ", before the " + end + " to read");
                }
                sum.update(buf.array(), 0, n);
                pos += n;
            }
        }
        return sum.getValue();
    }

    /**
     * After a failed copy into {@code target} (empty before it began): deletes every file there and,
     * when the copy {@code created} it, the directory; what cannot be deleted is added to
     * {@code failure}.
     */
    public static void removeWritten(FileSystem fs, Path target, boolean created, Throwable failure) {
        try {
            for (String name : fs.list(target)) {
                fs.delete(target.resolve(name));
            }
            if (created) {
                fs.delete(target);
            }
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Makes {@code target} ready to receive a copy of a store: creates it when missing (returning
     * true), accepts it empty, refuses anything else with an {@link IllegalArgumentException}
     * naming it as {@code what} and adding {@code storeHint} when it holds a store (a CURRENT file),
     * {@code partialHint} otherwise.
     */
    public static boolean prepareEmptyTarget(FileSystem fs, Path target, String what, String storeHint,
                                             String partialHint) throws IOException {
        if (!fs.exists(target)) {
            fs.createDirectories(target);
            return true;
        }
        java.util.List<String> names;
        try {
            names = fs.list(target);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " " + target + " exists and is not a directory", e);
        }
        if (!names.isEmpty()) {
            throw new IllegalArgumentException(what + " " + target + " exists and is not empty"
                    + (names.contains("CURRENT") ? storeHint : partialHint));
        }
        return false;
    }
}
