package io.bloomstore.bloom;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Bytes on disk are not what BloomStore wrote: a checksum mismatch, a bad magic number, a
 * truncated file, an impossible field. Names the file and the offset of the damage, and
 * when known what was expected and what was found. Never thrown for a caller's mistake.
 */
public class CorruptionException extends IOException {
    private final Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String message) {
        this(file, offset, message, null);
    }

    public CorruptionException(Path file, long offset, String message, Throwable cause) {
        super("corruption in " + file + " at offset " + offset + ": " + message, cause);
        this.file = file;
        this.offset = offset;
    }

    /** A mismatch of an expected value, for example a checksum. */
    public static CorruptionException mismatch(Path file, long offset, String what, long expected, long actual) {
        return new CorruptionException(file, offset,
                String.format("%s mismatch (expected 0x%x, found 0x%x)", what, expected, actual));
    }

    public Path file() {
        return file;
    }

    public long offset() {
        return offset;
    }
}
