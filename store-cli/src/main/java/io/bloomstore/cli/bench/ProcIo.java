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

    /**
     * Bytes this process has sent to storage so far: {@code write_bytes} less
     * {@code cancelled_write_bytes} (dirty pages of files deleted or truncated before they were
     * written back), every thread included; -1 where the file does not say.
     */
    public static long storageWriteBytes() {
        try {
            return parseWriteBytes(Files.readString(SELF_IO, StandardCharsets.US_ASCII));
        } catch (IOException | SecurityException e) {
            return -1;
        }
    }

    /** {@code write_bytes - cancelled_write_bytes} of the file's text, or -1 if either is missing. */
    static long parseWriteBytes(String text) {
        long written = -1;
        long cancelled = -1;
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            try {
                if (name.equals("write_bytes")) {
                    written = Long.parseLong(line.substring(colon + 1).trim());
                } else if (name.equals("cancelled_write_bytes")) {
                    cancelled = Long.parseLong(line.substring(colon + 1).trim());
                }
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return written < 0 || cancelled < 0 ? -1 : written - cancelled;
    }

    public ProcIo minus(ProcIo earlier) {
        return new ProcIo(readSyscalls - earlier.readSyscalls, storageReadBytes - earlier.storageReadBytes);
    }
}
