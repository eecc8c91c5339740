package io.bloomstore.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
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
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure of a command into one line on stderr ({@code bloomstore: ...}) and an
 * exit code from {@link ExitCodes}, choosing both by the exception's kind, never by its text.
 * The stack trace follows only with the global {@code --verbose}.
 *
 * <p>Thread safety: immutable; picocli calls it on the command's thread.
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {
    private final Main main;

    ErrorHandler(Main main) {
        this.main = main;
    }

    /** Bad command-line arguments (picocli could not parse them). */
    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("bloomstore: " + e.getMessage() + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
        if (main.verbose()) {
            e.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.USAGE;
    }

    /** An exception thrown by a command while it ran. */
    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parseResult) {
        Throwable t = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
        PrintWriter err = cmd.getErr();
        err.println("bloomstore: " + message(t));
        if (main.verbose()) {
            t.printStackTrace(err);
        }
        err.flush();
        return exitCode(t);
    }

    static int exitCode(Throwable t) {
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
        if (t instanceof IllegalArgumentException) {
            return ExitCodes.USAGE;
        }
        return ExitCodes.INTERNAL;
    }

    static String message(Throwable t) {
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
