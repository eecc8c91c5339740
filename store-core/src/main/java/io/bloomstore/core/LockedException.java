package io.bloomstore.core;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Thrown by {@link Store#open} and {@link StoreVerifier#verify} when the store directory is
 * already open, by this process or another (its {@code LOCK} file is held).
 *
 * <p>Thread safety: immutable.
 */
public class LockedException extends IOException {
    public LockedException(Path lockFile) {
        super("store is already open by another process or Store instance (lock held on " + lockFile + ")");
    }
}
