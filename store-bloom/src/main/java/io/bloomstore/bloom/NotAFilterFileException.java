package io.bloomstore.bloom;

import java.io.IOException;
import java.nio.file.Path;

/** A file given as a filter does not start with the filter magic number: it is something else. */
public class NotAFilterFileException extends IOException {
    private final Path file;

    public NotAFilterFileException(Path file) {
        super(file + " is not a BloomStore filter file (no filter magic number at offset 0)");
        this.file = file;
    }

    public Path file() {
        return file;
    }
}
