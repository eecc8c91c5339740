package io.bloomstore.cli;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FormatVersionException;
import io.bloomstore.bloom.NotAFilterFileException;
import io.bloomstore.core.LockedException;
import io.bloomstore.core.MergeOperatorMissingException;

/**
 * The exit code and the one-line message of a failure, chosen by the exception's kind, never by its
 * text: what {@link ErrorHandler} prints for picocli's commands and the short commands' fast path
 * ({@link io.bloomstore.cli.store.QuickCommands}) prints without picocli.
 *
 * <p>Thread safety: stateless.
 */
public final class Failures {
    private Failures() {
    }

    public static int exitCode(Throwable t) {
        if (t instanceof CliException c) {
            return c.exitCode();
        }
        if (t instanceof CorruptionException) {
            return ExitCodes.CORRUPTION;
        }
        if (t instanceof NotAFilterFileException || t instanceof FormatVersionException
                || t instanceof CharacterCodingException) {
            return ExitCodes.FORMAT;
        }
        if (t instanceof LockedException) {
            return ExitCodes.LOCKED;
        }
        if (t instanceof IOException) {
            return ExitCodes.IO;
        }
        if (t instanceof IllegalArgumentException || t instanceof MergeOperatorMissingException) {
            return ExitCodes.USAGE;
        }
        return ExitCodes.INTERNAL;
    }

    public static String message(Throwable t) {
        if (t instanceof NoSuchFileException f) {
            return "no such file: " + f.getFile();
        }
        if (t instanceof AccessDeniedException f) {
            return "permission denied: " + f.getFile();
        }
        if (t instanceof FileAlreadyExistsException f) {
            return "file already exists: " + f.getFile();
        }
        if (t instanceof NotDirectoryException f) {
            return "not a directory: " + f.getFile();
        }
        if (t instanceof DirectoryNotEmptyException f) {
            return "directory not empty: " + f.getFile();
        }
        if (t instanceof FileSystemException f && f.getReason() != null) {
            return f.getFile() + ": " + f.getReason();
        }
        if (t instanceof MergeOperatorMissingException) {
            return "the key has merge operands: give the merge operator the store was written with, "
                    + "--merge-operator int64add, append or append:C";
        }
        if (exitCode(t) == ExitCodes.INTERNAL) {
            return "internal error: " + t + " (a bug in BloomStore; --verbose shows where)";
        }
        if (t instanceof IOException && !(t instanceof CorruptionException || t instanceof NotAFilterFileException
                || t instanceof FormatVersionException || t instanceof LockedException)) {
            return "I/O error: " + t.getMessage();
        }
        return t.getMessage();
    }
}
