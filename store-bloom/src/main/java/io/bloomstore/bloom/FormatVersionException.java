package io.bloomstore.bloom;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file is a well-formed BloomStore file of a format version this build does not read.
 * Distinct from corruption: the bytes are fine, the reader is too old or too new.
 */
public class FormatVersionException extends IOException {
    private final Path file;
    private final int found;
    private final int supported;

    public FormatVersionException(Path file, String format, int found, int supported) {
        super(file + " is " + format + " format version " + found + "; this BloomStore reads version "
                + supported + " only");
        this.file = file;
        this.found = found;
        this.supported = supported;
    }

    public Path file() {
        return file;
    }

    public int found() {
        return found;
    }

    public int supported() {
        return supported;
    }
}
