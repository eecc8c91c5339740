package io.bloomstore.cli;

/**
 * The exit codes of every {@code bloomstore} command, in one place so scripts can branch on
 * them. {@link ErrorHandler} maps each exception kind to its code.
 *
 * <pre>
 *   0  OK            the command did what was asked
 *   1  NOT_FOUND     a query answered "no": a key absent from a filter, a key not in the store
 *   2  USAGE         bad arguments: unknown option, a number that does not parse or is out of range
 *   3  IO            the file system said no: a missing file, no permission, a full disk
 *   4  CORRUPTION    bytes on disk are not what BloomStore wrote (checksum, truncation)
 *   5  FORMAT        not a BloomStore file, one of a format version this build does not read,
 *                    or a bad line in a file of keys and values (load)
 *   6  LOCKED        the store directory is open in another process (or another Store in this one)
 *   7  NOT_A_STORE   the store commands' directory holds no store: missing or empty (only put and
 *                    load create one), a file, or a directory with other contents
 *   70 INTERNAL      a bug in BloomStore (sysexits' EX_SOFTWARE); rerun with --verbose for the trace
 * </pre>
 *
 * <p>Thread safety: constants only.
 */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int NOT_FOUND = 1;
    public static final int USAGE = 2;
    public static final int IO = 3;
    public static final int CORRUPTION = 4;
    public static final int FORMAT = 5;
    public static final int LOCKED = 6;
    public static final int NOT_A_STORE = 7;
    public static final int INTERNAL = 70;

    private ExitCodes() {
    }
}
