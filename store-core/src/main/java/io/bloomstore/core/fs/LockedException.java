package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.file.Path;

/** A store directory is already open, by this process or another. */
public class LockedException extends IOException {
    public LockedException(Path lockFile) {
        super("store is already open by another process or Store instance (lock held on " + lockFile + ")");
    }
}
