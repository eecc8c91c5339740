package io.bloomstore.cli.store;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

import com.sun.management.UnixOperatingSystemMXBean;
import io.bloomstore.core.StoreOptions;

/**
 * Chooses the store's {@code maxOpenFiles} for this process when the user names none: half the
 * process's own descriptor limit ({@code ulimit -n}), at most the store's default and at least its
 * minimum. The other half is left to what shares the limit with the tables: the JVM's own files
 * (its jars and modules image), the WAL, MANIFEST and LOCK, and filter sidecars while their
 * mappings still hold descriptors.
 *
 * <p>Thread safety: stateless.
 */
public final class OpenFilesLimit {
    private OpenFilesLimit() {
    }

    /** {@code maxOpenFiles} that fits this process's descriptor limit, or the default where it cannot be read. */
    public static int forThisProcess() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            return fit(unix.getMaxFileDescriptorCount());
        }
        return StoreOptions.DEFAULT_MAX_OPEN_FILES;
    }

    /** {@code maxOpenFiles} for a process limited to {@code descriptorLimit} open files (≤ 0: unknown). */
    static int fit(long descriptorLimit) {
        if (descriptorLimit <= 0) {
            return StoreOptions.DEFAULT_MAX_OPEN_FILES;
        }
        long half = descriptorLimit / 2;
        return (int) Math.max(StoreOptions.MIN_MAX_OPEN_FILES, Math.min(StoreOptions.DEFAULT_MAX_OPEN_FILES, half));
    }
}
