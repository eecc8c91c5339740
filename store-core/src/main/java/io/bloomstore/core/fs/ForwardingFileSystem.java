package io.bloomstore.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A file system that passes every call to another, its {@link #base()}: the place to start a
 * wrapper that changes a few calls (skips syncs, journals them, injects faults) and leaves the
 * rest as they are. A subclass overrides only what it changes; every other method of
 * {@link FileSystem}, the default ones included, goes to the base unchanged.
 *
 * <p>Thread safety: as the base file system; a subclass documents what its overrides add.
 */
public abstract class ForwardingFileSystem implements FileSystem {
    private final FileSystem base;

    /** Wraps {@code base}, to which every call not overridden goes. */
    protected ForwardingFileSystem(FileSystem base) {
        this.base = Objects.requireNonNull(base, "base");
    }

    /** The wrapped file system. */
    protected final FileSystem base() {
        return base;
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return base.create(path);
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
    public void syncDirectory(Path dir) throws IOException {
        base.syncDirectory(dir);
    }

    @Override
    public Closeable lock(Path path) throws IOException {
        return base.lock(path);
    }

    @Override
    public Closeable lockShared(Path path) throws IOException {
        return base.lockShared(path);
    }

    @Override
    public Closeable lockForUpdate(Path path) throws IOException {
        return base.lockForUpdate(path);
    }

    @Override
    public boolean supportsMapping() {
        return base.supportsMapping();
    }
}
