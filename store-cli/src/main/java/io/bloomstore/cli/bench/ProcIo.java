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
        long[] v = fields(text, "syscr", "read_bytes");
        return v == null ? Optional.empty() : Optional.of(new ProcIo(v[0], v[1]));
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
        long[] v = fields(text, "write_bytes", "cancelled_write_bytes");
        return v == null ? -1 : v[0] - v[1];
    }

    /**
     * The values of the {@code name: value} lines called {@code names}, in their order; null if one
     * is missing or not a number.
     */
    private static long[] fields(String text, String... names) {
        long[] values = new long[names.length];
        java.util.Arrays.fill(values, -1);
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            for (int i = 0; i < names.length; i++) {
                if (name.equals(names[i])) {
                    try {
                        values[i] = Long.parseLong(line.substring(colon + 1).trim());
                    } catch (NumberFormatException e) {
                        return null;
                    }
                }
            }
        }
        for (long v : values) {
            if (v < 0) {
                return null;
            }
        }
        return values;
    }

    public ProcIo minus(ProcIo earlier) {
        return new ProcIo(readSyscalls - earlier.readSyscalls, storageReadBytes - earlier.storageReadBytes);
    }
}
