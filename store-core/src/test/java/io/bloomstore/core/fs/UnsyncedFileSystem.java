package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The real file system with every sync skipped: for tests that build stores of thousands of
 * tables and care about descriptors and answers, not durability, so that two fsyncs per tiny
 * table do not dominate their run time. Reads, and so the descriptors they hold, are the real
 * ones.
 *
 * <p>Thread safety: as {@link LocalFileSystem}.
 */
public final class UnsyncedFileSystem extends ForwardingFileSystem {
    public static final UnsyncedFileSystem INSTANCE = new UnsyncedFileSystem();

    private UnsyncedFileSystem() {
        super(LocalFileSystem.INSTANCE);
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return new ForwardingWritableFile(base().create(path)) {
            @Override
            public void sync() {
            }
        };
    }

    @Override
    public void syncDirectory(Path dir) {
    }
}
