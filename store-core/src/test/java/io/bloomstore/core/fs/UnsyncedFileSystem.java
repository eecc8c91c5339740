package io.bloomstore.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The real file system with every sync skipped: for tests that build stores of thousands of
 * tables and care about descriptors and answers, not durability, so that two fsyncs per tiny
 * table do not dominate their run time. Reads, and so the descriptors they hold, are the real
 * ones.
 *
 * <p>Thread safety: as {@link LocalFileSystem}.
 */
public final class UnsyncedFileSystem implements FileSystem {
    public static final UnsyncedFileSystem INSTANCE = new UnsyncedFileSystem();

    private final FileSystem base = LocalFileSystem.INSTANCE;

    private UnsyncedFileSystem() {
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        WritableFile file = base.create(path);
        return new WritableFile() {
            @Override
            public void write(ByteBuffer data) throws IOException {
                file.write(data);
            }

            @Override
            public long position() {
                return file.position();
            }

            @Override
            public void sync() {
            }

            @Override
            public void close() throws IOException {
                file.close();
            }
        };
    }

    @Override
    public RandomReadFile openRead(Path path) throws IOException {
        return base.openRead(path);
    }

    @Override
    public RandomReadFile openReadDirect(Path path) throws IOException {
        return base.openReadDirect(path);
    }

    @Override
    public boolean exists(Path path) {
        return base.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return base.size(path);
    }

    @Override
    public void delete(Path path) throws IOException {
        base.delete(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        base.rename(source, target);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        return base.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        base.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) {
    }

    @Override
    public Closeable lock(Path path) throws IOException {
        return base.lock(path);
    }

    @Override
    public boolean supportsMapping() {
        return true;
    }
}
