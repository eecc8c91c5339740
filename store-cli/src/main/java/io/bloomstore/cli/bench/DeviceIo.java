package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The block device's own count of completed reads and bytes read, from Linux's
 * {@code /proc/diskstats}, for the device holding a store's directory (found by the directory's
 * device number). With direct reads each block-cache miss is a device read, so these are "disk
 * accesses" counted at the drive. The device is shared: other processes' reads count too, so a
 * figure is an upper bound on the engine's (compare with {@link ProcIo#storageReadBytes()}).
 *
 * <p>Thread safety: immutable.
 *
 * @param reads reads completed by the device
 * @param bytes bytes those reads fetched (sectors × 512)
 */
public record DeviceIo(long reads, long bytes) {
    private static final Path DISKSTATS = Path.of("/proc/diskstats");
    private static final int SECTOR_BYTES = 512;

    /** The device's counts now, or empty where the device or {@code /proc/diskstats} cannot be found. */
    public static Optional<DeviceIo> read(Path dir) {
        try {
            Object dev = Files.getAttribute(dir, "unix:dev");
            if (!(dev instanceof Long number)) {
                return Optional.empty();
            }
            return parse(Files.readString(DISKSTATS, StandardCharsets.US_ASCII), major(number), minor(number));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** glibc's {@code gnu_dev_major}. */
    static long major(long dev) {
        return ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
    }

    /** glibc's {@code gnu_dev_minor}. */
    static long minor(long dev) {
        return (dev & 0xff) | ((dev >>> 12) & ~0xffL);
    }

    /**
     * The line of device {@code major:minor}: fields major, minor, name, reads completed, reads
     * merged, sectors read, ...; empty when absent (a directory on tmpfs or an overlay has no device).
     */
    static Optional<DeviceIo> parse(String diskstats, long major, long minor) {
        for (String line : diskstats.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6) {
                continue;
            }
            try {
                if (Long.parseLong(f[0]) == major && Long.parseLong(f[1]) == minor) {
                    return Optional.of(new DeviceIo(Long.parseLong(f[3]), Long.parseLong(f[5]) * SECTOR_BYTES));
                }
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    public DeviceIo minus(DeviceIo earlier) {
        return new DeviceIo(reads - earlier.reads, bytes - earlier.bytes);
    }
}
