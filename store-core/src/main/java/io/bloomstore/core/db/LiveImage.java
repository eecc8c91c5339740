package io.bloomstore.core.db;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.table.TableFileNames;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A store directory made from outside a store another process may hold open, as a secondary
 * view is ({@link SecondaryView}) but whole: the MANIFEST's tables and filter sidecars hard-linked
 * (copied across devices), the MANIFEST and the WAL segments it does not cover copied as they were
 * at one moment, and {@code CURRENT} naming the copy, written last. What
 * {@link io.bloomstore.core.StoreVerifier#verifyLive} verifies in place of a store it may not lock.
 * Nothing is written, renamed, deleted or locked in the store's directory.
 *
 * <p>One moment without a lock: the MANIFEST and the WAL segments are opened, then the MANIFEST's
 * name and size are checked unchanged (the primary deletes a segment only after a MANIFEST edit made
 * it obsolete, and the MANIFEST only after CURRENT names another); the copies are made from those
 * descriptors. A change meanwhile, or a table deleted before it was linked, starts again (a few
 * attempts). A record the primary was still appending at that moment is copied torn, as a crash
 * would leave it: the verifier reports it as a warning.
 *
 * <p>Thread safety: stateless.
 */
public final class LiveImage {
    private LiveImage() {
    }

    /**
     * Makes the image of the store in {@code dir} in {@code target}, a missing directory outside it.
     *
     * @throws IOException when no consistent moment was found in {@link SecondaryDb#ATTEMPTS} attempts,
     *         or a file could not be read or written
     */
    public static void make(FileSystem fs, Path dir, Path target) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < SecondaryDb.ATTEMPTS; attempt++) {
            try {
                attempt(fs, dir, target);
                return;
            } catch (SecondaryView.Moved | NoSuchFileException | CorruptionException e) {
                last = e;
                SecondaryView.deleteDirectory(fs, target);
            } catch (IOException | RuntimeException | Error e) {
                SecondaryView.deleteDirectory(fs, target);
                throw e;
            }
            try {
                Thread.sleep(Math.min(1L << Math.min(attempt, 6), 50L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while making an image of " + dir);
            }
        }
        if (last instanceof CorruptionException) {
            throw last;
        }
        throw new IOException("no consistent moment of " + dir + " after " + SecondaryDb.ATTEMPTS
                + " attempts (its MANIFEST or files changed during each): " + last.getMessage(), last);
    }

    private static void attempt(FileSystem fs, Path dir, Path target) throws IOException {
        SecondaryView.Fingerprint before = SecondaryView.Fingerprint.read(fs, dir, false);
        List<RandomReadFile> open = new ArrayList<>();
        try {
            RandomReadFile manifest = fs.openRead(dir.resolve(before.manifest()));
            open.add(manifest);
            VersionSet versions = VersionSet.recoverReadOnly(fs, dir);
            versions.close();
            List<Long> wals = new ArrayList<>();
            for (String name : fs.list(dir)) {
                FileNames.Parsed p = FileNames.parse(name);
                if (p != null && p.kind() == FileNames.Kind.WAL && p.number() >= versions.logNumber()) {
                    wals.add(p.number());
                }
            }
            Collections.sort(wals);
            List<RandomReadFile> segments = new ArrayList<>();
            for (long n : wals) {
                RandomReadFile f = fs.openRead(FileNames.wal(dir, n));
                open.add(f);
                segments.add(f);
            }
            if (!before.sameManifest(SecondaryView.Fingerprint.read(fs, dir, false))) {
                throw new SecondaryView.Moved("the MANIFEST of " + dir + " changed while an image was made");
            }
            fs.createDirectories(target);
            for (FileMetaData f : versions.current().allFiles()) {
                fs.linkOrCopy(dir.resolve(TableFileNames.table(f.fileNumber())),
                        target.resolve(TableFileNames.table(f.fileNumber())));
                if (f.filterFileSize() > 0) {
                    fs.linkOrCopy(dir.resolve(TableFileNames.filter(f.fileNumber())),
                            target.resolve(TableFileNames.filter(f.fileNumber())));
                }
            }
            for (int i = 0; i < wals.size(); i++) {
                RandomReadFile f = segments.get(i);
                copy(f, f.size(), fs, FileNames.wal(target, wals.get(i)));
            }
            copy(manifest, before.manifestBytes(), fs, target.resolve(before.manifest()));
            try (WritableFile current = fs.create(target.resolve(FileNames.CURRENT))) {
                current.write(ByteBuffer.wrap((before.manifest() + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        } finally {
            for (RandomReadFile f : open) {
                f.close();
            }
        }
    }

    /** The first {@code length} bytes of an open file into a new file (a scratch copy: not synced). */
    private static void copy(RandomReadFile from, long length, FileSystem fs, Path to) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(1 << 20, Math.max(1, length)));
        try (WritableFile out = fs.create(to)) {
            for (long pos = 0; pos < length; ) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), length - pos));
                from.readFully(pos, buf);
                buf.flip();
                pos += buf.remaining();
                out.write(buf);
            }
        }
    }
}
