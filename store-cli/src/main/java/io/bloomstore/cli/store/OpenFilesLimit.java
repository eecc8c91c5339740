package io.bloomstore.cli.store;

import java.io.FileInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

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
    private static final String MAX_OPEN_FILES = "Max open files";

    private OpenFilesLimit() {
    }

    /** {@code maxOpenFiles} that fits this process's descriptor limit, or the default where it cannot be read. */
    public static int forThisProcess() {
        long fromProc = fromProcLimits(Path.of("/proc/self/limits"));
        if (fromProc != 0) {
            return fit(fromProc);
        }
        // The platform MXBeans cost a one-shot command some 80 classes: asked only off Linux.
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            return fit(unix.getMaxFileDescriptorCount());
        }
        return StoreOptions.DEFAULT_MAX_OPEN_FILES;
    }

    /**
     * The soft "Max open files" limit in a Linux {@code /proc/<pid>/limits} file; -1 for
     * "unlimited", 0 when the file is missing or has no such line.
     */
    static long fromProcLimits(Path limits) {
        String text;
        // Bytes through a FileInputStream, not Files.readAllLines or Files.readAllBytes: a reader and
        // its charset decoder cost a one-shot command some 4 ms the first time, and the NIO byte
        // channel's classes another 3 ms (async-profiler), for a file that is ASCII; the JVM's own
        // start has loaded FileInputStream already.
        try (FileInputStream in = new FileInputStream(limits.toFile())) {
            text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        int at = text.startsWith(MAX_OPEN_FILES) ? 0 : text.indexOf("\n" + MAX_OPEN_FILES);
        if (at < 0) {
            return 0;
        }
        // The soft limit is the first field after the name; no regular expression (a one-shot
        // command would pay some 4 ms compiling one).
        int i = text.indexOf(MAX_OPEN_FILES, at) + MAX_OPEN_FILES.length();
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        int end = i;
        while (end < text.length() && !Character.isWhitespace(text.charAt(end))) {
            end++;
        }
        String soft = text.substring(i, end);
        if (soft.equals("unlimited")) {
            return -1;
        }
        try {
            return Long.parseLong(soft);
        } catch (NumberFormatException e) {
            return 0;
        }
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
