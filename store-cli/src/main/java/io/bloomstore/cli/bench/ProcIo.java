package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The operating system's own count of this process's reads, from Linux's
 * {@code /proc/self/io}: {@code syscr} (read system calls, including preads of table
 * files) and {@code read_bytes} (bytes fetched from storage, i.e. page-cache misses).
 * It is an independent check of the engines' counters: it counts every thread of the JVM,
 * background compaction included.
 *
 * <p>Thread safety: immutable.
 */
public record ProcIo(long readSyscalls, long storageReadBytes) {
    private static final Path SELF_IO = Path.of("/proc/self/io");

    /** The current counts, or empty where the file does not exist or cannot be read. */
    public static Optional<ProcIo> read() {
        try {
            return parse(Files.readString(SELF_IO, StandardCharsets.US_ASCII));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** Parses the file's {@code name: value} lines; empty if either field is missing. */
    static Optional<ProcIo> parse(String text) {
        long syscr = -1;
        long readBytes = -1;
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            try {
                if (name.equals("syscr")) {
                    syscr = Long.parseLong(value);
                } else if (name.equals("read_bytes")) {
                    readBytes = Long.parseLong(value);
                }
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return syscr < 0 || readBytes < 0 ? Optional.empty() : Optional.of(new ProcIo(syscr, readBytes));
    }

    public ProcIo minus(ProcIo earlier) {
        return new ProcIo(readSyscalls - earlier.readSyscalls, storageReadBytes - earlier.storageReadBytes);
    }
}
