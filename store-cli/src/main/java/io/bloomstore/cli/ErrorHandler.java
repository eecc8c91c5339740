package io.bloomstore.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;

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
        return Failures.exitCode(t);
    }

    static String message(Throwable t) {
        return Failures.message(t);
    }
}
