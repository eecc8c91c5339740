package io.bloomstore.core.manifest;

import io.bloomstore.core.table.TableFileNames;
import java.nio.file.Path;

/**
 * Names of the files in a store directory: {@code NNNNNN.log} (WAL segments), {@code NNNNNN.sst}
 * and {@code NNNNNN.filter} (tables and their filters), {@code MANIFEST-NNNNNN}, {@code CURRENT}
 * (names the live MANIFEST), {@code LOCK}, {@code COUNTERS} (cumulative statistics). All numbers come from one counter, so a number names at
 * most one file of each kind. See {@code docs/architecture.md}.
 *
 * <p>Thread safety: stateless.
 */
public final class FileNames {
    public static final String CURRENT = "CURRENT";
    public static final String LOCK = "LOCK";
    /** The cumulative counters (docs/format/counters.md), and the file that replaces it. */
    public static final String COUNTERS = "COUNTERS";
    public static final String COUNTERS_TEMP = "COUNTERS.tmp";
    static final String CURRENT_TEMP = "CURRENT.tmp";
    static final String MANIFEST_PREFIX = "MANIFEST-";

    /** The kinds of file a store directory holds. */
    public enum Kind { WAL, TABLE, FILTER, MANIFEST, CURRENT, LOCK, TEMP, COUNTERS }

    /** A parsed file name: its kind and number (0 for unnumbered files). */
    public record Parsed(Kind kind, long number) {
    }

    private FileNames() {
    }

    public static Path wal(Path dir, long number) {
        return dir.resolve(TableFileNames.number(number) + ".log");
    }

    public static Path table(Path dir, long number) {
        return dir.resolve(TableFileNames.table(number));
    }

    public static Path filter(Path dir, long number) {
        return dir.resolve(TableFileNames.filter(number));
    }

    public static Path manifest(Path dir, long number) {
        return dir.resolve(MANIFEST_PREFIX + TableFileNames.number(number));
    }

    /** The kind and number of a store file name, or null for a name a store never writes. */
    public static Parsed parse(String name) {
        switch (name) {
            case CURRENT:
                return new Parsed(Kind.CURRENT, 0);
            case LOCK:
                return new Parsed(Kind.LOCK, 0);
            case CURRENT_TEMP:
                return new Parsed(Kind.TEMP, 0);
            case COUNTERS:
            case COUNTERS_TEMP:
                // The temporary file is not TEMP: obsolete-file deletion must not race a save.
                return new Parsed(Kind.COUNTERS, 0);
            default:
                break;
        }
        if (name.startsWith(MANIFEST_PREFIX)) {
            long n = number(name.substring(MANIFEST_PREFIX.length()));
            return n < 0 ? null : new Parsed(Kind.MANIFEST, n);
        }
        int dot = name.indexOf('.');
        if (dot <= 0) {
            return null;
        }
        long n = number(name.substring(0, dot));
        if (n < 0) {
            return null;
        }
        switch (name.substring(dot + 1)) {
            case "log":
                return new Parsed(Kind.WAL, n);
            case "sst":
                return new Parsed(Kind.TABLE, n);
            case "filter":
                return new Parsed(Kind.FILTER, n);
            default:
                return null;
        }
    }

    private static long number(String digits) {
        if (digits.isEmpty() || digits.length() > 18) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
